// Where a board opens (static/board/focus.js): the zoom at which its words read and its
// targets tap, and the view fitting the places to act.
import assert from "node:assert/strict";
import { test } from "node:test";
import { busiest, legibleScale, litAim, openingView, overlaps, shownBox } from "../../service/http/web/static/board/focus.js";

const frame = { width: 390, height: 500 };
const opts = { margin: 20, least: 4, most: 20, anchor: null };

test("the zoom floor: every word at 11 px and every target at 24 px, whichever needs more", () => {
  assert.equal(legibleScale([], [], 1), 1);
  assert.equal(legibleScale([2.2], [], 1), 5);  // a 2.2 px word needs 5 times
  assert.equal(legibleScale([5.5, 2.2], [[6, 8]], 1), 5);  // the word needs more than the 6 px target (4)
  assert.equal(legibleScale([11], [[4, 12]], 1), 6);  // the target's narrower side counts
  assert.equal(legibleScale([22], [[48, 48]], 3), 3);  // never below the floor given
  assert.equal(legibleScale([0], [[0, 10]], 1), 1);  // hidden things do not count
});

test("a small group of places is fitted with a margin, zoomed no further than the most", () => {
  const v = openingView([100, 100, 120, 110], frame, opts);
  assert.equal(v.scale, 17.5);  // (390 - 40) / 20
  assert.equal(v.x + v.scale * 110, 195);  // its middle in the frame's middle
  assert.equal(v.y + v.scale * 105, 250);
  assert.equal(openingView([100, 100, 101, 101], frame, opts).scale, 20);
});

test("a group wider than the frame at the least zoom opens at that zoom round the first place", () => {
  const box = [0, 0, 400, 100];
  const v = openingView(box, frame, { ...opts, anchor: [390, 50] });
  assert.equal(v.scale, 4);
  const shown = shownBox(v, frame);
  assert.ok(shown[0] <= 390 && 390 <= shown[2], shown);  // the first place to act in view
  assert.ok(shown[0] > 0, shown);  // moved from the group's middle towards it
  // Without an anchor: the group's middle.
  const middle = openingView(box, frame, opts);
  assert.equal(middle.x + middle.scale * 200, 195);
});

test("a group that fits at the least zoom is shown whole", () => {
  const box = [10, 10, 60, 50];  // 50 wide: (390 - 40) / 50 = 7
  const v = openingView(box, frame, { ...opts, anchor: [10, 10] });
  assert.equal(v.scale, 7);
  const shown = shownBox(v, frame);
  assert.ok(shown[0] <= 10 && shown[2] >= 60 && shown[1] <= 10 && shown[3] >= 50, shown);
});

test("what a view shows, and whether boxes overlap", () => {
  assert.deepEqual(shownBox({ scale: 2, x: -100, y: -40 }, { width: 200, height: 100 }), [50, 20, 150, 70]);
  assert.ok(overlaps([0, 0, 10, 10], [5, 5, 20, 20]));
  assert.ok(!overlaps([0, 0, 10, 10], [10, 0, 20, 10]));  // touching is not showing
});

test("too many places for the screen: the window round the most of them", () => {
  const at = (x, y) => [x - 5, y - 5, x + 5, y + 5];
  const lone = at(0, 0), cluster = [at(500, 500), at(520, 510), at(540, 490)], far = at(1000, 0);
  assert.deepEqual(busiest([lone, ...cluster, far], [50, 50]), [495, 485, 545, 515]);
  assert.deepEqual(busiest([lone, far], [50, 50]), lone);  // a tie: the first
  assert.deepEqual(busiest([lone, ...cluster, far], [2000, 2000]), [-5, -5, 1005, 515]);  // all fit
});

test("a picked piece's places: all when they fit at the zoom that reads, else those in view, else the most together", () => {
  const at = (x, y) => [x - 5, y - 5, x + 5, y + 5];
  const small = { width: 100, height: 100 };
  const ring = [at(0, 0), at(20, 0), at(300, 300), at(320, 300), at(330, 310)];
  assert.deepEqual(litAim(ring.slice(0, 2), small, 10, 2, [0, 0, 50, 50]), [-5, -5, 25, 5]);  // fit
  // 335 px across at zoom 2 do not fit 80: the two the view shows whole stay
  assert.deepEqual(litAim(ring, small, 10, 2, [-10, -10, 40, 40]), [-5, -5, 25, 5]);
  // none shown whole: the most that lie together within the frame at that zoom (±15 px)
  assert.deepEqual(litAim(ring, small, 10, 2, [100, 100, 150, 150]), [315, 295, 335, 315]);
});
