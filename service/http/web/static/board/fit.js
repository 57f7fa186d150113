// The lit places of a piece just picked, brought into view (view.js fitBox): a phone's
// picture is cut to the map's box, so it is widened to hold them (as little as needed); then,
// if any lies outside the zoomed frame, the board is panned so that they show, and zoomed out
// only when they do not fit at the player's zoom, never below the zoom at which the words
// and places round them read (focus.js: 11 px words, 24 px targets). When they do not all fit
// at that zoom (Attika's map tile, whose places ring the map), those in view stay as they
// are, else the part of them where most lie together is shown, the rest a pan away
// (focus.js litAim). The page scrolls their rows on screen.
import { legibleWithin, litAim, measure, shownBox } from "./focus.js";
import { fitBox, union } from "./view.js";

const PAD = 12;
const MARGIN = 4;

function widen(svg, lit) {
  const view = svg.viewBox.baseVal;
  const b = union(lit.map((el) => {
    const r = el.getBBox();
    return [r.x, r.y, r.x + r.width, r.y + r.height];
  }));
  if (!view || !view.width || (b[0] >= view.x && b[1] >= view.y && b[2] <= view.x + view.width && b[3] <= view.y + view.height)) {
    return;
  }
  const x0 = Math.min(view.x, b[0] - PAD), y0 = Math.min(view.y, b[1] - PAD);
  const x1 = Math.max(view.x + view.width, b[2] + PAD), y1 = Math.max(view.y + view.height, b[3] + PAD);
  svg.setAttribute("viewBox", [x0, y0, x1 - x0, y1 - y0].join(" "));
  svg.setAttribute("width", String(x1 - x0));
  svg.setAttribute("height", String(y1 - y0));
}

// The page scrolled (a phone): the lit places' rows brought on screen, above a fixed bar.
function onScreen(bar, top, bottom) {
  let foot = window.innerHeight;
  if (bar && !bar.hidden && window.getComputedStyle(bar).position === "fixed") { foot = bar.getBoundingClientRect().top; }
  if (top < 0) {
    window.scrollBy(0, top - 8);
  } else if (bottom > foot) {
    window.scrollBy(0, Math.min(top - 8, bottom - foot + 8));
  }
}

export function fitLit(board) {
  const { svg, box, bar } = board.elements;
  const { panzoom } = board;
  const lit = svg ? Array.from(svg.querySelectorAll(".legal")) : [];
  if (!lit.length || !panzoom.layer) { return; }
  widen(svg, lit);
  // In the layer's own (unzoomed) pixels: where the lit places are, and the frame shown.
  const frame = box.getBoundingClientRect();
  const h = panzoom.layer.getBoundingClientRect().height / panzoom.view.scale;
  const buttons = box.querySelector(".zoom-buttons");
  const shownH = Math.min(h, buttons ? buttons.getBoundingClientRect().top - frame.top : h);
  const size = { width: box.clientWidth, height: shownH };
  const boxes = lit.map(measure(panzoom.layer, panzoom.view));
  // Not below the zoom they read at, unless the player zoomed out further themselves.
  const least = Math.min(panzoom.view.scale, legibleWithin(svg, panzoom, union(boxes), ".legal"));
  const aim = litAim(boxes, size, MARGIN, least, shownBox(panzoom.view, size));
  const next = fitBox(panzoom.view, aim, size, MARGIN, least);
  if (next) {
    Object.assign(panzoom.view, next);
    panzoom.apply();
  }
  const v = panzoom.view;
  onScreen(bar, frame.top + v.y + v.scale * aim[1], frame.top + v.y + v.scale * aim[3]);
}
