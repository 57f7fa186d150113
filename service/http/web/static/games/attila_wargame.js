// The Attila wargame's table: the board (board/board.js) with the wargame's play (march,
// attack, notes: attila_wargame/play.js), its layers and last battle (attila_wargame/
// layers.js), its mini-map (attila_wargame/minimap.js) and the shared pan and zoom with the
// wheel, the keyboard and a full-screen button. The zoom, the full screen and the layers
// shown outlive updates in place.
import { button } from "../board/dom.js";
import { start } from "../board/start.js";
import { battleMarks, layers } from "./attila_wargame/layers.js";
import { createMiniMap } from "./attila_wargame/minimap.js";
import { wargamePlay } from "./attila_wargame/play.js";
import { sayer } from "./attila_wargame/words.js";

const words = { say: sayer({}) };
const play = wargamePlay(words);
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

// Before the zoom measures the board: the layer toggles (they widen the zoom buttons' bar)
// and, on a phone, the map alone at full width (the side panel's facts are in the status strip).
function beforeZoom(board) {
  panzoom = board.panzoom;
  const { box, svg } = board.elements;
  if (!box) { return; }
  words.say = sayer(JSON.parse(box.dataset.words || "{}"));
  layers(box, words.say);
  const map = svg && svg.getElementById("map");
  if (map && box.clientWidth < 600) {
    const b = map.getBBox();
    svg.setAttribute("viewBox", [b.x, b.y, b.width, b.height].join(" "));
    svg.setAttribute("width", String(b.width));
    svg.setAttribute("height", String(b.height));
  }
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

// On a phone the box is most of the screen's height (kurier.css) and the map, wider than tall,
// would fill a third of it at full width: it opens zoomed to fill the box's height (the middle
// of the empire; zoom out or 0 for the whole width). Once: an update keeps the player's zoom.
function phoneFit(box, layer) {
  if (fitted || box.clientWidth >= 600 || layer.offsetHeight <= 0) { return; }
  fitted = true;
  const fill = mapHeight(box) / layer.offsetHeight;
  if (fill > 1) {
    Object.assign(panzoom.view, { scale: fill, x: (box.clientWidth - layer.offsetWidth * fill) / 2, y: 0 });
  }
}

function attach(board) {
  const { box, svg } = board.elements;
  if (box && panzoom.layer) {
    mini = createMiniMap(box, svg, (x, y) => jumpTo(x, y, Math.max(panzoom.view.scale, 3)));
    fullScreenButton(box);
    phoneFit(box, panzoom.layer);
    battleMarks(box);
  }
  play.attach(board);
}

start({
  dataId: "wargame-data",
  panzoom: {
    maxScale: 12, step: 1.6, centre: true, wheel: true, keyboard: true, dragAlways: true,
    frameHeight: mapHeight,
    content: (box, layer) => ({ width: layer.offsetWidth, height: layer.offsetHeight }),
    onChange: (view, jump) => moved(view, jump),
  },
  beforeZoom,
  attach,
  render: () => play.render(),
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
