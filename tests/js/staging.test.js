// The staging of a move's parts (static/board/staging.js): stage, undo, the whole move handed
// to its one callback.
import assert from "node:assert/strict";
import { test } from "node:test";
import { confirmMove, createStaging, sendsAtOnce } from "../../service/http/web/static/board/staging.js";

const start = { actions: [{ pick: "card:red", n: "play red" }], labels: {} };
const after = { actions: [{ pick: "tile:2", n: "tile 2 at hex-1,1", target: "hex-1,1" }], labels: {} };
const done = { actions: [], labels: {} };

test("staged parts make the move, in order, and the confirm bar's words", () => {
  const staging = createStaging(start);
  staging.stage({ moves: ["play red"], label: "play red" });
  staging.follow(after);
  staging.stage({ moves: ["march A 1", "march A 2"], label: "A \u2192 2" });
  assert.deepEqual(staging.moves(), ["play red", "march A 1", "march A 2"]);
  assert.equal(staging.text(), "play red \u00B7 A \u2192 2");
  assert.equal(staging.size(), 2);
  assert.equal(staging.previous(), after);
});

test("undo takes the last part back with the table before it", () => {
  const staging = createStaging(start);
  staging.stage({ moves: ["play red"], label: "play red" });
  staging.follow(after);
  assert.equal(staging.table(), after);
  const part = staging.undo();
  assert.deepEqual(part.moves, ["play red"]);
  assert.equal(staging.table(), start);
  assert.equal(staging.size(), 0);
  assert.equal(staging.undo(), null);
  assert.equal(staging.table(), start);
});

test("a move is complete when nothing may follow it", () => {
  const staging = createStaging(start);
  assert.equal(staging.complete(), false);
  staging.stage({ moves: ["play red"], label: "play red" });
  staging.follow(after);
  assert.equal(staging.complete(), false);
  staging.stage({ moves: ["tile 2 at hex-1,1"], label: "tile 2 at hex-1,1" });
  staging.follow(done);
  assert.equal(staging.complete(), true);
});

test("confirm hands the whole move to the one callback, once", async () => {
  const staging = createStaging(start);
  const calls = [];
  const onMove = (moves) => { calls.push(moves); return [true, { version: 7 }]; };
  assert.equal(confirmMove(staging, onMove), null);
  assert.deepEqual(calls, []);
  staging.stage({ moves: ["play red"], label: "play red" });
  staging.stage({ moves: ["tile 2 at hex-1,1"], label: "tile" });
  assert.deepEqual(await confirmMove(staging, onMove), [true, { version: 7 }]);
  assert.deepEqual(calls, [["play red", "tile 2 at hex-1,1"]]);
});

test("reset forgets every part, on the new table", () => {
  const staging = createStaging(start);
  staging.stage({ moves: ["play red"], label: "play red" });
  staging.reset(after);
  assert.deepEqual(staging.moves(), []);
  assert.equal(staging.table(), after);
  assert.equal(staging.previous(), null);
});

test("a part whose action draws by itself is sent at once; any other waits for Confirm", () => {
  assert.equal(sendsAtOnce({ moves: ["reveal 2"], label: "reveal 2", action: { n: "reveal 2", sends: true } }), true);
  assert.equal(sendsAtOnce({ moves: ["build well at 0,0"], label: "x", action: { n: "build well at 0,0" } }), false);
  assert.equal(sendsAtOnce({ moves: ["tile 1 at 2,0 rot 1"], label: "x" }), false);
  assert.equal(sendsAtOnce(null), false);
});
