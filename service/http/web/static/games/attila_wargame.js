// The Attila wargame's table: the board (board/board.js) with the wargame's play (march,
// attack, notes: attila_wargame/play.js), its layers and last battle (attila_wargame/
// layers.js), its mini-map (attila_wargame/minimap.js), where the map opens (board/
// focus.js) and the shared pan and zoom with the wheel, the keyboard and a full-screen button. The zoom, the full screen and the layers
// shown outlive updates in place.
import { button } from "../board/dom.js";
import { openOnAction } from "../board/focus.js";
import { start } from "../board/start.js";
import { battleMarks, layers } from "./attila_wargame/layers.js";
import { createMiniMap } from "./attila_wargame/minimap.js";
import { wargamePlay } from "./attila_wargame/play.js";
import { sayer } from "./attila_wargame/words.js";

const words = { say: sayer({}) };
const play = wargamePlay(words);
// The most zoom: a stack of four counters read on a phone (focus.js).
const MAX_SCALE = 20;
let full = false, fitted = false, mini = null, rest = null, panzoom = null;

// The map's window: the box less the zoom buttons' bar under it (in the flow, not over it).
function mapHeight(box) {
  const buttons = box.querySelector(".zoom-buttons");
  return box.clientHeight - (buttons ? buttons.offsetHeight : 0);
}
// SVG units to the unzoomed layer's pixels.
function unit(layer) {
  const vb = layer.querySelector("svg").viewBox.baseVal;
  return layer.offsetWidth / vb.width;
}

// While the map moves it is composited (scaled as drawn: a frame costs no new drawing of its
// thousands of elements); 250 ms after the last move it is drawn again at its scale.
function still(layer) {
  clearTimeout(rest);
  layer.classList.remove("wg-moving");
}
function moved(view, jump) {
  const { box, layer } = panzoom;
  box.dataset.scale = view.scale.toFixed(2);
  const k = unit(layer) * view.scale;
  if (mini && k) { mini.frame(view, mapHeight(box), k); }
  if (jump) { still(layer); return; }  // a jump (a link, the mini-map) is drawn sharp at once
  layer.classList.add("wg-moving");
  clearTimeout(rest);
  rest = setTimeout(() => still(layer), 250);
}

/** Centres the map's SVG point (x, y) at this scale, drawn at once. */
function jumpTo(x, y, scale) {
  const layer = panzoom.layer, vb = layer.querySelector("svg").viewBox.baseVal, k = unit(layer);
  panzoom.zoomTo((x - vb.x) * k, (y - vb.y) * k, scale);
}

// Before the zoom measures the board: the layer toggles (they widen the zoom buttons' bar).
function beforeZoom(board) {
  panzoom = board.panzoom;
  const { box } = board.elements;
  if (!box) { return; }
  words.say = sayer(JSON.parse(box.dataset.words || "{}"));
  layers(box, words.say);
}

function fullScreenButton(box) {
  const buttons = box.querySelector(".zoom-buttons");
  if (!buttons || buttons.querySelector(".zoom-full")) { return; }
  const b = button("\u2922", () => {
    full = !full;
    box.classList.toggle("wg-full", full);
    document.body.classList.toggle("wg-full-page", full);
    b.setAttribute("aria-pressed", full ? "true" : "false");
    panzoom.apply();
  }, "zoom-full");
  b.setAttribute("aria-label", words.say("full_screen"));
  b.setAttribute("aria-pressed", full ? "true" : "false");
  buttons.appendChild(b);
  box.classList.toggle("wg-full", full);
}

// Where the player acts: the counters that can act and the hexes lit for them.
const ACTING = ".wg-pickable, #wg-under .wg-lit";

// The map opens where the player acts, at a zoom it reads at (board/focus.js): once a page,
// after the first drawing of what may be picked; an update keeps the player's zoom.
function openOnce(board) {
  const { svg } = board.elements;
  if (fitted || !panzoom.layer || !svg) { return; }
  fitted = openOnAction(svg, panzoom, MAX_SCALE, {
    acting: Array.from(svg.querySelectorAll(ACTING)), targets: ACTING, last: "[id^='last-move-']",
  });
}

function attach(board) {
  const { box, svg } = board.elements;
  if (box && panzoom.layer) {
    mini = createMiniMap(box, svg, (x, y) => jumpTo(x, y, Math.max(panzoom.view.scale, 3)));
    fullScreenButton(box);
    battleMarks(box);
  }
  play.attach(board);
  if (!board.playable()) { openOnce(board); }
}

start({
  dataId: "wargame-data",
  panzoom: {
    maxScale: MAX_SCALE, step: 1.6, centre: true, wheel: true, keyboard: true, dragAlways: true,
    frameHeight: mapHeight,
    content: (box, layer) => ({ width: layer.offsetWidth, height: layer.offsetHeight }),
    onChange: (view, jump) => moved(view, jump),
  },
  beforeZoom,
  attach,
  render: (board) => {
    play.render();
    openOnce(board);
  },
  reset: (b, why) => play.reset(why),
  staged: () => play.staged(),
  undo: () => play.undo(),
  keydown: (b, e) => play.keydown(b, e),
  hook: (b) => ({
    // Where a counter or hex is, for a test or a link: centre it on the screen, zoomed in.
    show(id, scale) {
      const g = b.elements.svg && b.elements.svg.querySelector("[id='" + String(id).replace(/'/g, "") + "']");
      if (!g || !panzoom.layer) { return; }
      const r = g.getBBox();
      jumpTo(r.x + r.width / 2, r.y + r.height / 2, scale || 6);
    },
  }),
});
