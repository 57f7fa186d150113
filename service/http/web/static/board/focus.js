// Where a board opens: zoomed to where the player acts (a game's ``acting`` places: the
// wargame's counters that can act and the hexes lit for them, Attika's sites of the pending
// decision), their box fitted with a margin, but never below the zoom at which every target
// in view is MIN_TARGET CSS px wide and every informative word (class "info": names, counts,
// factors) MIN_TEXT CSS px high (WCAG 2.2, 2.5.8); when they do not all fit at that zoom, the
// part of them where most lie together. With nothing to do, the board opens at that zoom
// round the last move (or the board's middle). The maths is pure (node --test);
// ``openOnAction`` reads the page.
import { centreOn, union } from "./view.js";

export const MIN_TARGET = 24;
export const MIN_TEXT = 11;
const MARGIN = 24;
// A small group (a retreat: a counter and two hexes) is shown at most this much closer than
// the zoom it reads at, with the hexes round it (unless a game asks for less).
const CLOSEST = 1.6;

/**
 * The least scale at which every word of ``fonts`` (font sizes in px at scale 1) reaches
 * MIN_TEXT and every target of ``sizes`` ([width, height] in px at scale 1) MIN_TARGET;
 * ``floor`` when there is none.
 */
export function legibleScale(fonts, sizes, floor) {
  const needs = fonts.filter((f) => f > 0).map((f) => MIN_TEXT / f)
    .concat(sizes.filter((s) => s[0] > 0 && s[1] > 0).map((s) => MIN_TARGET / Math.min(s[0], s[1])));
  return needs.reduce((a, b) => Math.max(a, b), floor);
}

/**
 * The view (scale, x, y) showing ``box`` ([left, top, right, bottom] of the unzoomed layer)
 * in ``frame`` ({ width, height }) ``margin`` px inside its edges, its scale between
 * ``least`` and ``most``. A box too big for the frame at ``least`` is shown from its middle
 * moved as little as needed to keep ``anchor`` ([x, y], the first place to act) in view.
 */
export function openingView(box, frame, { margin, least, most, anchor }) {
  const w = Math.max(box[2] - box[0], 1), h = Math.max(box[3] - box[1], 1);
  const fit = Math.min((frame.width - 2 * margin) / w, (frame.height - 2 * margin) / h);
  const scale = Math.min(most, Math.max(least, fit));
  let cx = (box[0] + box[2]) / 2, cy = (box[1] + box[3]) / 2;
  if (anchor) {
    const hw = Math.max(0, frame.width / 2 - margin) / scale, hh = Math.max(0, frame.height / 2 - margin) / scale;
    cx = Math.min(anchor[0] + hw, Math.max(anchor[0] - hw, cx));
    cy = Math.min(anchor[1] + hh, Math.max(anchor[1] - hh, cy));
  }
  return centreOn(cx, cy, scale, frame);
}

/**
 * Of the places ``boxes`` ([left, top, right, bottom]), the most a window reaching ``half``
 * ([x, y]) either side of one's middle holds: their box (the first such group on a tie).
 */
export function busiest(boxes, half) {
  const mids = boxes.map((b) => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]);
  let best = [];
  mids.forEach((c) => {
    const near = boxes.filter((b, i) => Math.abs(mids[i][0] - c[0]) <= half[0] && Math.abs(mids[i][1] - c[1]) <= half[1]);
    if (near.length > best.length) { best = near; }
  });
  return union(best);
}

/** Whether two boxes [left, top, right, bottom] overlap. */
export function overlaps(a, b) {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

/**
 * Which of the lit places ``boxes`` ([left, top, right, bottom] of the unzoomed layer) to
 * bring into ``frame`` at a zoom of at least ``least``: all of them when they fit; else those
 * the view ``shown`` (the layer's part on screen) holds whole, if any (the view stays); else
 * the part of them where most lie together. The rest are a pan away.
 */
export function litAim(boxes, frame, margin, least, shown) {
  const all = union(boxes);
  if ((all[2] - all[0]) * least <= frame.width - 2 * margin && (all[3] - all[1]) * least <= frame.height - 2 * margin) {
    return all;
  }
  const inside = boxes.filter((b) => b[0] >= shown[0] && b[1] >= shown[1] && b[2] <= shown[2] && b[3] <= shown[3]);
  if (inside.length) { return union(inside); }
  const widest = Math.max(...boxes.map((b) => b[2] - b[0])), tallest = Math.max(...boxes.map((b) => b[3] - b[1]));
  const half = [Math.max(0, (frame.width / 2 - margin) / least - widest / 2), Math.max(0, (frame.height / 2 - margin) / least - tallest / 2)];
  return busiest(boxes, half);
}

/** The part of the layer (unzoomed px) a view shows in ``frame``. */
export function shownBox(view, frame) {
  return [-view.x / view.scale, -view.y / view.scale, (frame.width - view.x) / view.scale, (frame.height - view.y) / view.scale];
}

// -- The page ----------------------------------------------------------------------------

// Each element's box in the unzoomed layer's px, read once (the layer drawn at ``view``).
export function measure(layer, view) {
  const origin = layer.getBoundingClientRect();
  return (el) => {
    const r = el.getBoundingClientRect();
    return [(r.left - origin.left) / view.scale, (r.top - origin.top) / view.scale,
      (r.right - origin.left) / view.scale, (r.bottom - origin.top) / view.scale];
  };
}

// The words' font sizes and the targets' sizes (px at scale 1) of what lies in ``within``
// (every one when null); ``targets`` the game's targets (a selector).
function sizesIn(svg, at, within, targets) {
  const fonts = [], sizes = [];
  svg.querySelectorAll(".info").forEach((t) => {
    const r = at(t);
    if (within && !overlaps(r, within)) { return; }
    const b = t.getBBox();
    if (b.height > 0) { fonts.push(parseFloat(getComputedStyle(t).fontSize) * (r[3] - r[1]) / b.height); }
  });
  svg.querySelectorAll(targets).forEach((g) => {
    const r = at(g);
    if (!within || overlaps(r, within)) { sizes.push([r[2] - r[0], r[3] - r[1]]); }
  });
  return { fonts, sizes };
}

/**
 * The least zoom at which every informative word and target (``targets``, a selector) of
 * ``svg`` lying in ``within`` (a box of the unzoomed layer) reads; 1 when the whole board's
 * view does.
 */
export function legibleWithin(svg, panzoom, within, targets) {
  const near = sizesIn(svg, measure(panzoom.layer, panzoom.view), within, targets);
  return legibleScale(near.fonts, near.sizes, 1);
}

/**
 * Whether every informative word and target of ``svg`` reads at the board's unzoomed view
 * (the whole board shown): no zoom is needed to play it.
 */
export function readsWhole(svg, panzoom, targets) {
  const layer = panzoom.layer;
  if (!layer || !svg || layer.offsetWidth <= 0) { return true; }
  const all = sizesIn(svg, measure(layer, panzoom.view), null, targets);
  return legibleScale(all.fonts, all.sizes, 1) <= 1;
}

/**
 * Zooms ``panzoom`` (the board's) to where the player acts on ``svg`` (see above), at most
 * ``most``. game: { acting (the elements where the player acts, in order: the first is
 * kept in view), targets (a selector of the tap targets whose size counts), last (a selector
 * of the last move's elements), closest (how much closer than the zoom it reads at a small
 * group is shown, default CLOSEST) }.
 */
export function openOnAction(svg, panzoom, most, game) {
  const layer = panzoom.layer, frame = panzoom.frame();
  if (!layer || !svg || layer.offsetWidth <= 0 || frame.height <= 0) { return false; }
  const at = measure(layer, panzoom.view);
  const targets = game.targets;
  const acting = game.acting.map(at);
  const last = Array.from(svg.querySelectorAll(game.last)).map(at);
  const middle = (b) => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2];
  let view;
  if (acting.length) {
    const near = sizesIn(svg, at, union(acting), targets);
    const least = legibleScale(near.fonts, near.sizes, 1);
    // Too many places to show at that zoom: the part of them where most lie together.
    const widest = Math.max(...acting.map((b) => b[2] - b[0])), tallest = Math.max(...acting.map((b) => b[3] - b[1]));
    const half = [Math.max(0, (frame.width / 2 - MARGIN) / least - widest / 2), Math.max(0, (frame.height / 2 - MARGIN) / least - tallest / 2)];
    const aim = busiest(acting, half);
    const closest = Math.min(most, least * (game.closest || CLOSEST));
    view = openingView(aim, frame, { margin: MARGIN, least, most: closest, anchor: middle(acting[0]) });
  } else {
    // The largest word's zoom (a counter alone in its hex), raised below for what shows.
    const fonts = sizesIn(svg, at, null, targets).fonts;
    const least = fonts.length ? MIN_TEXT / Math.max(...fonts) : 1;
    const c = last.length ? middle(union(last)) : [layer.offsetWidth / 2, layer.offsetHeight / 2];
    view = centreOn(c[0], c[1], Math.min(most, Math.max(1, least)), frame);
  }
  // Whatever else the view shows reads too (a stack's smaller counters): zoomed in round
  // the same middle until it does (each step shows less).
  for (let step = 0; step < 3; step += 1) {
    const shown = sizesIn(svg, at, shownBox(view, frame), targets);
    const needed = Math.min(most, legibleScale(shown.fonts, shown.sizes, view.scale));
    if (needed <= view.scale) { break; }
    const c = middle(shownBox(view, frame));
    view = centreOn(c[0], c[1], needed, frame);
  }
  Object.assign(panzoom.view, view);
  panzoom.apply(true);
  return true;
}
