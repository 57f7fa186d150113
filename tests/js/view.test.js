// The zoom maths (static/board/view.js): clamping, zooming around a point, a pinch, fitting.
import assert from "node:assert/strict";
import { test } from "node:test";
import { centreOn, clampScale, clampView, fitBox, pinchStep, union, zoomAround } from "../../service/http/web/static/board/view.js";

const frame = { width: 400, height: 300 };

test("the scale stays between the whole board and the most zoom", () => {
  assert.equal(clampScale(0.2, 4), 1);
  assert.equal(clampScale(2.5, 4), 2.5);
  assert.equal(clampScale(9, 4), 4);
});

test("a board fills its frame: it is never moved off an edge", () => {
  assert.deepEqual(clampView({ scale: 2, x: 50, y: 40 }, frame, frame, 4, false), { scale: 2, x: 0, y: 0 });
  assert.deepEqual(clampView({ scale: 2, x: -900, y: -900 }, frame, frame, 4, false), { scale: 2, x: -400, y: -300 });
  assert.deepEqual(clampView({ scale: 1, x: -10, y: -10 }, frame, frame, 4, false), { scale: 1, x: 0, y: 0 });
});

test("content smaller than its frame is centred when asked", () => {
  const small = { width: 400, height: 100 };
  assert.deepEqual(clampView({ scale: 1, x: 0, y: 0 }, frame, small, 12, true), { scale: 1, x: 0, y: 100 });
  assert.deepEqual(clampView({ scale: 1, x: 0, y: 0 }, frame, small, 12, false), { scale: 1, x: 0, y: 0 });
  // zoomed in so far that it is taller than the frame: clamped to its edges again
  assert.deepEqual(clampView({ scale: 4, x: 0, y: 30 }, frame, small, 12, true), { scale: 4, x: 0, y: 0 });
});

test("zooming keeps the point under the pointer where it is", () => {
  const view = { scale: 1, x: 0, y: 0 };
  const next = zoomAround(view, 2, 100, 50, 4);
  assert.deepEqual(next, { scale: 2, x: -100, y: -50 });
  // the layer's point under (100, 50) before and after: (100 - x) / scale
  assert.equal((100 - next.x) / next.scale, (100 - view.x) / view.scale);
  assert.equal(zoomAround(next, 10, 0, 0, 4).scale, 4);
  assert.deepEqual(zoomAround(next, 0.1, 0, 0, 4), { scale: 1, x: -50, y: -25 });
});

test("a pinch zooms by how much further apart the fingers are, around their middle", () => {
  const start = { distance: 100, scale: 1.5 };
  const step = pinchStep(start, { x: 0, y: 0 }, { x: 200, y: 0 }, 1.5);
  assert.deepEqual(step, { factor: 2, cx: 100, cy: 0 });
  // the view already followed half of it: the rest
  assert.equal(pinchStep(start, { x: 0, y: 0 }, { x: 200, y: 0 }, 2).factor, 1.5);
  // two fingers on one spot at the start do not divide by zero
  assert.ok(Number.isFinite(pinchStep({ distance: 0, scale: 1 }, { x: 0, y: 0 }, { x: 10, y: 0 }, 1).factor));
});

test("a jump centres a point of the layer", () => {
  assert.deepEqual(centreOn(100, 50, 2, frame), { scale: 2, x: 0, y: 50 });
});

test("lit places already shown move nothing; others are brought in, zoomed out only when needed", () => {
  const view = { scale: 2, x: 0, y: 0 };
  assert.equal(fitBox(view, [10, 10, 50, 50], frame, 4), null);
  // off to the right, small: panned at the same zoom
  const panned = fitBox(view, [250, 10, 260, 20], frame, 4);
  assert.equal(panned.scale, 2);
  assert.ok(panned.x + 2 * 260 <= 400 - 4 + 1e-9 && panned.x + 2 * 250 >= 0);
  // wider than the frame at this zoom: zoomed out until they fit
  const out = fitBox(view, [0, 0, 390, 20], frame, 4);
  assert.ok(out.scale < 2 && out.scale >= 1);
  // never below the zoom the words read at: panned at that zoom instead
  const floored = fitBox(view, [0, 0, 390, 20], frame, 4, 1.8);
  assert.equal(floored.scale, 1.8);
  assert.deepEqual(union([[0, 5, 10, 10], [-2, 7, 3, 20]]), [-2, 5, 10, 20]);
});
