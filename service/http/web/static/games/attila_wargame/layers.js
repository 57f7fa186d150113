// The wargame's layers (zones of control, regions, rivers, cities, the mini-map: shown or
// hidden by the player, which outlives an update in place) and the last battle marked step by
// step on the map.
import { button, svgElement as el } from "../../board/dom.js";

// -- Layers: zones of control, regions, rivers, cities on demand; this phase's moves -------
// Which layers are hidden or shown outlives an update in place, as the zoom does.
const shown = { zoc: false, regions: true, rivers: true, cities: true, minimap: true };
export function layers(box, say) {
  var svg = box.querySelector(".zoom svg");
  var buttons = box.querySelector(".zoom-buttons");
  if (!svg || !buttons || box.dataset.wgLayers) { return; }
  box.dataset.wgLayers = "1";
  var data = JSON.parse(box.dataset.layers || "{}");
  var firstUnit = svg.querySelector("g[id^='unit-']");
  function hexPoints(label) {
    var shape = svg.querySelector("[id='hex-" + label + "'] polygon");
    return shape && shape.getAttribute("points");
  }
  function group(id, cls, labels) {  // hex outlines under the counters, from the map's own
    var g = el("g", { id: id, "class": cls, "pointer-events": "none" });
    (labels || []).forEach(function (label) {
      var points = hexPoints(label);
      if (points) { g.appendChild(el("polygon", { points: points, "data-hex": label })); }
    });
    if (firstUnit) { firstUnit.parentNode.insertBefore(g, firstUnit); } else { svg.appendChild(g); }
    return g;
  }
  var zoc = data.zoc || {};
  group("wg-zoc-roman", "wg-zoc wg-zoc-roman", zoc.roman);
  group("wg-zoc-barbarian", "wg-zoc wg-zoc-barbarian", zoc.barbarian);
  // This phase's moves: the hexes of the counters moved in this movement phase (the last
  // move is the picture's own mark).
  var moved = data.moved || {};
  Object.keys(moved).forEach(function (unit) {
    var g = svg.querySelector("[id='unit-" + unit + "']");
    if (g) { g.classList.add("wg-moved-unit"); }
  });
  group("wg-moved", "wg-moved", Object.keys(moved).map(function (unit) { return moved[unit]; }));
  var bar = document.createElement("div");
  bar.className = "wg-layers";
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", say("layers"));
  Object.keys(shown).forEach(function (key) {
    var b = button(say(key), function () {
      shown[key] = !shown[key];
      apply();
    }, "wg-layer wg-layer-" + key);
    bar.appendChild(b);
  });
  function apply() {
    Object.keys(shown).forEach(function (key) {
      box.classList.toggle("wg-hide-" + key, !shown[key]);
      bar.querySelector(".wg-layer-" + key).setAttribute("aria-pressed", shown[key] ? "true" : "false");
    });
  }
  buttons.insertBefore(bar, buttons.firstChild);
  apply();
}

// -- The last battle, marked step by step (wargame_table.battle) --------------------------
// Each step has its number on the map, as in the line under the status strip: a ring on the
// battle's hex, its odds and result as numbered labels over it (not over the counters), a
// cross where a unit was eliminated, an arrow for each retreat and advance. A battle (or a
// step of it) not yet shown on this page comes in one step after the other; the same marks
// after an update in place stand still.
const battleSeen = {};
export function battleMarks(box) {
  var svg = box.querySelector(".zoom svg");
  var data = JSON.parse(box.dataset.layers || "{}").battle;
  if (!svg || !data || !data.steps || svg.querySelector("#wg-battle")) { return; }
  var g = el("g", { id: "wg-battle", "class": "wg-battle", "pointer-events": "none", "data-ref": data.ref || "" });
  var defs = el("defs");
  ["retreat", "advance"].forEach(function (kind) {
    var m = el("marker", { id: "wg-arrow-" + kind, viewBox: "0 0 10 10", refX: "6", refY: "5",
      markerWidth: "3", markerHeight: "3", orient: "auto", "class": "wg-arrowhead-" + kind });
    m.appendChild(el("path", { d: "M0,0 L10,5 L0,10 z" }));
    defs.appendChild(m);
  });
  g.appendChild(defs);
  function hexBox(label) {
    var shape = label && svg.querySelector("[id='hex-" + label + "'] polygon");
    return shape ? shape.getBBox() : null;
  }
  function centre(b) { return [b.x + b.width / 2, b.y + b.height / 2]; }
  // What each step's label says on the map (the line under the strip says it in full).
  function words(step) {
    if (step.kind === "battle") { return data.column || "\u2694"; }
    if (step.kind === "result") { return data.result || ""; }
    if (step.kind === "loss") { return "\u2212" + step.points + " " + step.unit; }
    if (step.kind === "eliminated") { return "\u2715 " + step.unit; }
    if (step.kind === "blocked") { return "\u2298 " + step.unit; }
    return "";
  }
  var seen = battleSeen[data.ref] || 0;
  var fresh = 0, rows = {}, marks = [], labels = [];
  data.steps.forEach(function (step) {
    var b = hexBox(step.hex);
    if (!b) { return; }
    var r = b.width / 2, c = centre(b);
    var mark = el("g", { "class": "wg-mark wg-mark-" + step.kind, "data-step": step.n,
      "data-kind": step.kind, "data-hex": step.hex });
    var t = el("title");
    t.textContent = step.n + ". " + step.text;
    mark.appendChild(t);
    var at = null;  // where its number goes: on an arrow, else in a row of labels over the hex
    if (step.kind === "battle") {
      mark.appendChild(el("circle", { cx: c[0], cy: c[1], r: r * 1.05, "class": "wg-battle-ring" }));
    } else if (step.kind === "eliminated") {
      var k = r * 0.7;
      mark.appendChild(el("path", { d: "M" + (c[0] - k) + "," + (c[1] - k) + " L" + (c[0] + k) + "," + (c[1] + k) +
        " M" + (c[0] + k) + "," + (c[1] - k) + " L" + (c[0] - k) + "," + (c[1] + k), "class": "wg-cross" }));
    } else if (step.kind === "retreat" || step.kind === "advance") {
      var from = hexBox(step.from);
      if (from) {
        var a = centre(from), dx = c[0] - a[0], dy = c[1] - a[1];
        // from the start's edge to the end's, over the counters, with a light casing
        var line = { x1: a[0] + dx * 0.25, y1: a[1] + dy * 0.25, x2: a[0] + dx * 0.68, y2: a[1] + dy * 0.68 };
        mark.appendChild(el("line", Object.assign({ "class": "wg-arrow-casing" }, line)));
        mark.appendChild(el("line", Object.assign({ "class": "wg-arrow", "marker-end": "url(#wg-arrow-" + step.kind + ")" }, line)));
        at = [a[0] + dx * 0.5 + dy * 0.35, a[1] + dy * 0.5 - dx * 0.35];  // beside the arrow
      }
    }
    // (the label comes in by a CSS transform: its place is its inner group's)
    var label = el("g", { "class": "wg-step-label" }), inner = el("g");
    label.appendChild(inner);
    var text = words(step), h = r * 0.52, font = r * 0.36;
    var width = h + (text ? text.length * font * 0.68 + h * 0.35 : 0);
    if (!at) {
      rows[step.hex] = rows[step.hex] || { x: 0, items: [], c: c, y: b.y - h * 0.6 };
      rows[step.hex].items.push({ label: inner, width: width });
    }
    inner.appendChild(el("rect", { x: 0, y: -h / 2, width: width, height: h, rx: h / 2, "class": "wg-label-box" }));
    inner.appendChild(el("circle", { cx: h / 2, cy: 0, r: h * 0.42, "class": "wg-label-n" }));
    var n = el("text", { x: h / 2, y: 0, "text-anchor": "middle", "dominant-baseline": "central", "font-size": font, "class": "wg-label-n-text" });
    n.textContent = String(step.n);
    inner.appendChild(n);
    if (text) {
      var w = el("text", { x: h + h * 0.1, y: 0, "dominant-baseline": "central", "font-size": font, "class": "wg-mark-words" });
      w.textContent = text;
      inner.appendChild(w);
    }
    if (at) { inner.setAttribute("transform", "translate(" + (at[0] - h / 2) + "," + at[1] + ")"); }
    label.setAttribute("data-step", step.n);
    labels.push(label);
    if (step.n > seen) {  // not yet shown here: one step after the other
      [mark, label].forEach(function (m) {
        m.classList.add("wg-mark-new");
        m.style.animationDelay = (fresh * 0.7) + "s";
      });
      fresh += 1;
    }
    marks.push(mark);
  });
  // Each hex's labels side by side, centred over it.
  Object.keys(rows).forEach(function (hex) {
    var row = rows[hex], gap = 4;
    var total = row.items.reduce(function (sum, it) { return sum + it.width + gap; }, -gap);
    var x = row.c[0] - total / 2;
    row.items.forEach(function (it) {
      it.label.setAttribute("transform", "translate(" + x + "," + row.y + ")");
      x += it.width + gap;
    });
  });
  // The labels over every ring, cross and arrow (each comes in with its step).
  marks.concat(labels).forEach(function (m) { g.appendChild(m); });
  battleSeen[data.ref] = Math.max(seen, data.steps.length);
  svg.appendChild(g);
}
