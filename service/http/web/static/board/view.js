// The zoom maths of every board, free of the DOM (node --test imports it): a view is
// { scale, x, y }, the layer drawn at ``scale`` and moved by (x, y) pixels inside its frame.

/** ``scale`` kept between 1 (the whole board) and ``max``. */
export function clampScale(scale, max) {
  return Math.min(max, Math.max(1, scale));
}

/**
 * The view kept on the board: its scale clamped, and the board's ``content`` (its unzoomed
 * size) moved no further than its edges reach into the ``frame``; content smaller than the
 * frame (when ``centre``) is centred in it.
 */
export function clampView(view, frame, content, max, centre) {
  const scale = clampScale(view.scale, max);
  const cw = content.width * scale, ch = content.height * scale;
  const along = (at, shown, size) => (centre && size <= shown ? (shown - size) / 2 : Math.min(0, Math.max(shown - size, at)));
  return { scale, x: along(view.x, frame.width, cw), y: along(view.y, frame.height, ch) };
}

/** The view zoomed by ``factor`` around the frame's point (cx, cy), which stays put. */
export function zoomAround(view, factor, cx, cy, max) {
  const scale = clampScale(view.scale * factor, max);
  return {
    scale,
    x: cx - ((cx - view.x) * scale) / view.scale,
    y: cy - ((cy - view.y) * scale) / view.scale,
  };
}

/** How far two pointers are apart. */
export function distance(a, b) {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/**
 * A pinch going on: the factor to zoom the view by now (around the pointers' middle, also
 * returned) so that its scale is the scale at the pinch's start times how much further apart
 * the two pointers are than they were then.
 */
export function pinchStep(start, a, b, scale) {
  return {
    factor: (start.scale * distance(a, b)) / (start.distance || 1) / scale,
    cx: (a.x + b.x) / 2,
    cy: (a.y + b.y) / 2,
  };
}

/** The view that shows the point (px, py) of the unzoomed layer in the frame's middle. */
export function centreOn(px, py, scale, frame) {
  return { scale, x: frame.width / 2 - px * scale, y: frame.height / 2 - py * scale };
}

/** The smallest box holding every box given as [left, top, right, bottom]. */
export function union(boxes) {
  return boxes.reduce(
    (u, r) => [Math.min(u[0], r[0]), Math.min(u[1], r[1]), Math.max(u[2], r[2]), Math.max(u[3], r[3])],
    [Infinity, Infinity, -Infinity, -Infinity],
  );
}

/**
 * The view that brings ``lit`` (a box of the unzoomed layer, [left, top, right, bottom]) into
 * the frame, as a map app fits its results: unchanged when it shows already; otherwise it
 * keeps the middle of what is shown where it can, zooms out only when ``lit`` does not fit
 * at the player's zoom, never below ``least`` (1: the whole board), and moves just enough
 * (``margin`` pixels inside the frame's edges). Returns null when nothing needs to move.
 */
export function fitBox(view, lit, frame, margin, least = 1) {
  const { scale, x, y } = view;
  const w = frame.width, h = frame.height;
  const inside = x + scale * lit[0] >= 0 && x + scale * lit[2] <= w && y + scale * lit[1] >= 0 && y + scale * lit[3] <= h;
  if (inside) {
    return null;
  }
  const next = Math.max(least, Math.min(scale, (w - 2 * margin) / (lit[2] - lit[0]), (h - 2 * margin) / (lit[3] - lit[1])));
  let nx = w / 2 - (next * (w / 2 - x)) / scale, ny = h / 2 - (next * (h / 2 - y)) / scale;
  if (nx + next * lit[0] < margin) { nx = margin - next * lit[0]; }
  if (nx + next * lit[2] > w - margin) { nx = w - margin - next * lit[2]; }
  if (ny + next * lit[1] < margin) { ny = margin - next * lit[1]; }
  if (ny + next * lit[3] > h - margin) { ny = h - margin - next * lit[3]; }
  return { scale: next, x: nx, y: ny };
}
