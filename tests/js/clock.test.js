// The time bank's countdown (static/board/clock.js): what a bank holds as time passes, and
// how it is said.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatLeft, readBank, secondsLeft } from "../../service/http/web/static/board/clock.js";

const english = (_name, word) => word;

test("a running bank counts down from what it held, never below zero", () => {
  const bank = { left: 100, at: 900, running: true, countsUntil: null };
  assert.equal(secondsLeft(bank, 900), 100);
  assert.equal(secondsLeft(bank, 950), 50);
  assert.equal(secondsLeft(bank, 1000), 0);
  assert.equal(secondsLeft(bank, 5000), 0);
});

test("a running bank stops counting at the player's weekend", () => {
  const bank = { left: 100, at: 900, running: true, countsUntil: 930 };
  assert.equal(secondsLeft(bank, 920), 80);
  assert.equal(secondsLeft(bank, 930), 70);
  assert.equal(secondsLeft(bank, 99999), 70);
  // inside the weekend already: it holds still
  assert.equal(secondsLeft({ ...bank, countsUntil: 900 }, 5000), 100);
});

test("a stopped bank keeps what it held", () => {
  assert.equal(secondsLeft({ left: 7200, at: 0, running: false, countsUntil: null }, 1e12), 7200);
});

test("the two largest units are shown", () => {
  assert.equal(formatLeft(2 * 86400 + 4 * 3600 + 59, english), "2 d 4 h");
  assert.equal(formatLeft(3 * 3600 + 12 * 60 + 5, english), "3 h 12 min");
  assert.equal(formatLeft(4 * 60 + 9.8, english), "4 min 9 s");
  assert.equal(formatLeft(86400 + 30, english), "1 d 0 h");
  assert.equal(formatLeft(0.4, english), "0 s");
});

test("the page's words are used", () => {
  const german = (name, word) => ({ D: "T", H: "Std." }[name] || word);
  assert.equal(formatLeft(86400 + 3600, german), "1 T 1 Std.");
});

test("a bank is read from its element's data", () => {
  assert.deepEqual(readBank({ left: "12.5", at: "1800000000.25", running: "true", countsUntil: "" }), {
    left: 12.5,
    at: 1800000000.25,
    running: true,
    countsUntil: null,
  });
  assert.equal(readBank({ left: "1", at: "2", running: "false", countsUntil: "7" }).countsUntil, 7);
});
