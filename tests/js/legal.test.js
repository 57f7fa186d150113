// From the server's legal actions to what lights up (static/board/legal.js), Attika's tiles
// (static/games/attika_tiles.js) and the wargame's words (attila_wargame/words.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { byPick, cardsMove, litPlaces, looseMoves, movesAt, pickPlaces, sameCards } from "../../service/http/web/static/board/legal.js";
import { coveredHexes, nextRotation, rotations, tileAt } from "../../service/http/web/static/games/attika_tiles.js";
import { sayer } from "../../service/http/web/static/games/attila_wargame/words.js";

const actions = [
  { pick: "building:temple", n: "build temple at site-3", target: "site-3", cost: "2 marble" },
  { pick: "building:temple", n: "build temple at site-4", target: "site-4" },
  { pick: "building:port", n: "build port at site-4", target: "site-4" },
  { pick: "pass", n: "pass" },
  { pick: "cards", n: "lay red red", cards: ["red", "red"] },
  { pick: "cards", n: "lay red blue", cards: ["blue", "red"] },
];
const places = { "site-3": "Athens, site 3" };

test("actions are grouped by their pick, in order", () => {
  const picks = byPick(actions);
  assert.deepEqual(Object.keys(picks), ["building:temple", "building:port", "pass", "cards"]);
  assert.equal(picks["building:temple"].length, 2);
});

test("each action's pick and place, as the test hook reads them", () => {
  assert.deepEqual(pickPlaces(actions.slice(2, 4)), [["building:port", "site-4"], ["pass", null]]);
});

test("a pick lights its places, each named, with the move and its cost", () => {
  assert.deepEqual(litPlaces(actions, "building:temple", places), [
    { target: "site-3", n: "build temple at site-3", label: "Athens, site 3; build temple at site-3; 2 marble", many: false },
    { target: "site-4", n: "build temple at site-4", label: "site-4; build temple at site-4", many: false },
  ]);
  assert.deepEqual(litPlaces(actions, "pass", places), []);
});

test("several moves at one place say the pick, and the place is lit once", () => {
  const twice = [
    { pick: "tile", n: "tile at hex-0,0 r0", target: "hex-0,0", rotation: 0 },
    { pick: "tile", n: "tile at hex-0,0 r1", target: "hex-0,0", rotation: 1 },
  ];
  const lit = litPlaces(twice, "tile", {});
  assert.equal(lit.length, 1);
  assert.equal(lit[0].label, "hex-0,0; tile");
  assert.equal(movesAt(twice, "tile", "hex-0,0").length, 2);
  // all at one place: offered as buttons too
  assert.equal(looseMoves(twice, () => true).length, 2);
});

test("moves without a place on the board are offered as buttons", () => {
  const onBoard = (id) => id === "site-3";
  assert.deepEqual(looseMoves(actions.slice(0, 4), onBoard).map((a) => a.n),
    ["build temple at site-4", "build port at site-4", "pass"]);
});

test("the cards tapped choose the move that lays them, in any order", () => {
  assert.ok(sameCards(["red", "blue"], ["blue", "red"]));
  assert.ok(!sameCards(["red"], ["red", "red"]));
  assert.equal(cardsMove(actions, ["red", "blue"]).n, "lay red blue");
  assert.equal(cardsMove(actions, ["blue"]), null);
});

test("a map tile: its rotations at a place, the one shown, the hexes it covers", () => {
  const tiles = [
    { pick: "tile", n: "t r2", target: "hex-2,3", rotation: 2 },
    { pick: "tile", n: "t r4", target: "hex-2,3", rotation: 4 },
    { pick: "tile", n: "t other", target: "hex-5,5", rotation: 0 },
  ];
  assert.deepEqual(rotations(tiles, "hex-2,3").map((a) => a.rotation), [2, 4]);
  assert.equal(tileAt(tiles, "hex-2,3", 4).n, "t r4");
  assert.equal(tileAt(tiles, "hex-2,3", 0).n, "t r2");
  assert.equal(tileAt(tiles, "hex-9,9", 0), null);
  assert.equal(nextRotation([2, 4], 4), 2);
  const shapes = { 2: [[0, 0, "#fff"], [1, -1, "#00f"]] };
  assert.deepEqual(coveredHexes(tiles[0], shapes), [["hex-2,3", "#fff"], ["hex-3,2", "#00f"]]);
  assert.deepEqual(coveredHexes(tiles[1], shapes), []);
});

test("the wargame's words fill their placeholders as Python's % does", () => {
  const say = sayer({ stops_at: "%(unit)s stops at %(hex)s", odds: "100%% %(x)s" });
  assert.equal(say("stops_at", { unit: "HUN-1", hex: "12,4" }), "HUN-1 stops at 12,4");
  assert.equal(say("odds", {}), "100% %(x)s");
  assert.equal(say("missing"), "missing");
});
