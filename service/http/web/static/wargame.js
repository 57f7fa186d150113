// The Attila wargame on the board (issue 33). The server hands the page the legal actions with
// their counters and hexes (engine/attila_wargame/targets.py) and, for a counter picked up, its
// march: each hex it can still reach with the path, the cost and why the move ends there, and
// the neighbouring hexes it may not enter with the engine's reason. The page lights them up,
// draws the path, stages the chosen parts (the steps of a march, an attack with its attackers,
// a card, a note) and sends them with Confirm as one request of several actions, through
// table.js's kurierTableKit. No rule is decided here.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  // Zoom and pan outlive an update in place (a new init, on the map kept in the page).
  var view = { scale: 1, x: 0, y: 0, full: false, fitted: false };
  var MAX_SCALE = 12;
  // The listeners of one init. An update in place keeps the map's own elements (the box, its
  // picture: kurier.js's morph), so each init takes the last one's off them first.
  var listening = new AbortController();
  function on(target, type, handler, options) {
    target.addEventListener(type, handler, Object.assign({ signal: listening.signal }, options || {}));
  }

  function el(name, attrs) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  var button = window.kurierTableKit.button;
  // Every word shown here, in the player's language: the board's data-words
  // (wargame_table.WORDS), read by init. say("stops_at", { unit: u, hex: h }) fills the
  // %(name)s placeholders as Python's % does (and %% is a %).
  var words = {};
  function say(key, values) {
    return (words[key] || key).replace(/%(?:\((\w+)\)s|%)/g, function (all, name) {
      if (!name) { return "%"; }
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : all;
    });
  }

  // -- The mini-map's pictures --------------------------------------------------------------
  // Drawn from the picture's own attributes (no layout asked for): the hexes' fills, the
  // empires' borders and the rivers, once per map (its kept part's key, service/pictures/
  // keep.py); MINI_W pixels wide, twice the widest mini-map for a sharp picture.
  var MINI_W = 280, drawnGround = null;
  function points(shape) {
    return shape.getAttribute("points").trim().split(/\s+/).map(function (p) { return p.split(",").map(Number); });
  }
  function miniGround(svg) {
    var hexes = svg.querySelector("#hexes");
    var key = hexes && hexes.getAttribute("data-keep");
    if (!key) { return null; }
    if (drawnGround && drawnGround.key === key) { return drawnGround; }
    var shapes = Array.prototype.map.call(hexes.querySelectorAll("polygon"), function (p) {
      return { at: points(p), fill: p.getAttribute("fill") };
    });
    var xs = [], ys = [];
    shapes.forEach(function (s) { s.at.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); }); });
    if (!xs.length) { return null; }
    var box = { x: Math.min.apply(null, xs), y: Math.min.apply(null, ys) };
    box.width = Math.max.apply(null, xs) - box.x;
    box.height = Math.max.apply(null, ys) - box.y;
    var canvas = document.createElement("canvas");
    canvas.width = MINI_W;
    canvas.height = Math.round(MINI_W * box.height / box.width);
    var k = MINI_W / box.width, c = canvas.getContext("2d");
    c.setTransform(k, 0, 0, k, -box.x * k, -box.y * k);
    c.lineWidth = 1 / k;
    shapes.forEach(function (s) {
      c.beginPath();
      s.at.forEach(function (p, i) { if (i) { c.lineTo(p[0], p[1]); } else { c.moveTo(p[0], p[1]); } });
      c.closePath();
      c.fillStyle = c.strokeStyle = s.fill || "#ccc";
      c.fill();
      c.stroke();  // in its own colour: no light seams between the hexes
    });
    ["#borders", "#rivers"].forEach(function (id) {
      var lines = svg.querySelector(id);
      if (!lines) { return; }
      c.strokeStyle = lines.getAttribute("stroke");
      c.lineWidth = Math.max(1.5 / k, Number(lines.getAttribute("stroke-width")) || 1);
      c.beginPath();
      lines.querySelectorAll("line").forEach(function (l) {
        c.moveTo(Number(l.getAttribute("x1")), Number(l.getAttribute("y1")));
        c.lineTo(Number(l.getAttribute("x2")), Number(l.getAttribute("y2")));
      });
      c.stroke();
    });
    drawnGround = { key: key, box: box, canvas: canvas };
    return drawnGround;
  }
  // The ground, and each counter as a square of its colour, where it stands now.
  function miniCanvas(svg, drawn) {
    var canvas = document.createElement("canvas");
    canvas.width = drawn.canvas.width;
    canvas.height = drawn.canvas.height;
    var c = canvas.getContext("2d"), k = canvas.width / drawn.box.width;
    c.drawImage(drawn.canvas, 0, 0);
    c.setTransform(k, 0, 0, k, -drawn.box.x * k, -drawn.box.y * k);
    function at(shape, name) { return Number(shape.getAttribute(name)); }
    // A counter's face, or a command unit's disc; the side's band is the colour seen from afar.
    svg.querySelectorAll("g[id^='unit-'] > rect[stroke], g[id^='unit-'] > circle[stroke]").forEach(function (s) {
      c.fillStyle = s.getAttribute("stroke");
      if (s.tagName === "rect") {
        c.fillRect(at(s, "x"), at(s, "y"), at(s, "width"), at(s, "height"));
      } else {
        c.fillRect(at(s, "cx") - at(s, "r"), at(s, "cy") - at(s, "r"), 2 * at(s, "r"), 2 * at(s, "r"));
      }
    });
    return canvas;
  }

  // -- Zoom and pan: wheel, pinch, drag, +/- buttons, keyboard, full screen ----------------
  function zoom(box) {
    var layer = box.querySelector(".zoom");
    if (!layer || box.wgZoomed === listening) { return; }  // once per init
    box.wgZoomed = listening;
    box.setAttribute("tabindex", "0");
    var pointers = {}, pinch = null, moved = 0;
    // On a phone the map alone, at full width (the side panel's facts are in the status strip).
    var svg = layer.querySelector("svg"), map = svg && svg.getElementById("map");
    if (map && box.clientWidth < 600) {
      var b = map.getBBox();
      svg.setAttribute("viewBox", [b.x, b.y, b.width, b.height].join(" "));
      svg.setAttribute("width", String(b.width));
      svg.setAttribute("height", String(b.height));
    }
    var buttons = box.querySelector(".zoom-buttons");
    // The map's window: the box less the zoom buttons' bar under it (in the flow, not over it).
    function height() { return box.clientHeight - (buttons ? buttons.offsetHeight : 0); }
    function apply(jump) {
      view.scale = Math.min(MAX_SCALE, Math.max(1, view.scale));
      var w = box.clientWidth, h = height();
      var cw = layer.offsetWidth * view.scale, ch = layer.offsetHeight * view.scale;
      view.x = cw <= w ? (w - cw) / 2 : Math.min(0, Math.max(w - cw, view.x));
      view.y = ch <= h ? (h - ch) / 2 : Math.min(0, Math.max(h - ch, view.y));
      layer.style.transform = "translate(" + view.x + "px," + view.y + "px) scale(" + view.scale + ")";
      box.dataset.scale = view.scale.toFixed(2);
      frameMini();
      if (!jump) { moving(); } else { still(); }  // a jump (wgZoomTo) is drawn sharp at once
    }
    // While the map moves it is composited (scaled as drawn: a frame costs no new drawing of
    // its thousands of elements); 250 ms after the last move it is drawn again at its scale.
    var rest = null;
    function moving() {
      layer.classList.add("wg-moving");
      clearTimeout(rest);
      rest = setTimeout(still, 250);
    }
    function still() {
      clearTimeout(rest);
      layer.classList.remove("wg-moving");
    }
    // The mini-map, in the box's bottom left corner, with the part in view framed; a tap there
    // centres the map on that place. Toggled as a layer. A canvas: the ground drawn once a
    // game (miniGround), the counters as squares on each update. (An SVG <use> of #map drew
    // the map's 5,600 elements a second time, again on every change inside #map: two thirds
    // of an update in place.)
    var mini = null, miniFrame = null, drawn = svg && miniGround(svg), whole = drawn && drawn.box;
    if (drawn) {
      mini = document.createElement("div");
      mini.className = "wg-minimap";
      mini.setAttribute("aria-hidden", "true");  // the keyboard pans with the arrow keys
      mini.style.aspectRatio = whole.width + " / " + whole.height;
      mini.appendChild(miniCanvas(svg, drawn));
      miniFrame = document.createElement("div");
      miniFrame.className = "wg-minimap-frame";
      mini.appendChild(miniFrame);
      box.appendChild(mini);
      mini.addEventListener("pointerdown", function (e) {
        e.stopPropagation();
        var r = mini.getBoundingClientRect();
        box.wgZoomTo(whole.x + (e.clientX - r.left) / r.width * whole.width,
          whole.y + (e.clientY - r.top) / r.height * whole.height, Math.max(view.scale, 3));
      });
    }
    function frameMini() {
      if (!mini || !svg) { return; }
      var vb = svg.viewBox.baseVal, k = layer.offsetWidth / vb.width * view.scale;
      if (!k) { return; }
      mini.style.bottom = (box.clientHeight - height() + 6) + "px";
      var m = mini.clientWidth / whole.width;
      var x = vb.x - view.x / k, y = vb.y - view.y / k;
      var left = Math.max(0, (x - whole.x) * m), top = Math.max(0, (y - whole.y) * m);
      var right = Math.min(mini.clientWidth, (x + box.clientWidth / k - whole.x) * m);
      var bottom = Math.min(mini.clientHeight, (y + height() / k - whole.y) * m);
      miniFrame.style.transform = "translate(" + left + "px," + top + "px)";
      miniFrame.style.width = Math.max(2, right - left) + "px";
      miniFrame.style.height = Math.max(2, bottom - top) + "px";
    }
    function zoomAt(factor, cx, cy) {
      var next = Math.min(MAX_SCALE, Math.max(1, view.scale * factor));
      view.x = cx - (cx - view.x) * next / view.scale;
      view.y = cy - (cy - view.y) * next / view.scale;
      view.scale = next;
      apply();
    }
    function centre(factor) { zoomAt(factor, box.clientWidth / 2, height() / 2); }
    buttons.querySelector(".zoom-in").addEventListener("click", function () { centre(1.6); });
    buttons.querySelector(".zoom-out").addEventListener("click", function () { centre(1 / 1.6); });
    var full = button("\u2922", function () {
      view.full = !view.full;
      box.classList.toggle("wg-full", view.full);
      document.body.classList.toggle("wg-full-page", view.full);
      full.setAttribute("aria-pressed", view.full ? "true" : "false");
      apply();
    }, "zoom-full");
    full.setAttribute("aria-label", say("full_screen"));
    full.setAttribute("aria-pressed", view.full ? "true" : "false");
    buttons.appendChild(full);
    box.classList.toggle("wg-full", view.full);
    on(box, "wheel", function (e) {
      e.preventDefault();
      var r = box.getBoundingClientRect();
      zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    on(box, "keydown", function (e) {
      if (e.target !== box) { return; }
      var step = 60;
      var keys = { "+": function () { centre(1.4); }, "=": function () { centre(1.4); }, "-": function () { centre(1 / 1.4); },
        ArrowLeft: function () { view.x += step; apply(); }, ArrowRight: function () { view.x -= step; apply(); },
        ArrowUp: function () { view.y += step; apply(); }, ArrowDown: function () { view.y -= step; apply(); },
        "0": function () { view.scale = 1; apply(); } };
      if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    });
    on(box, "pointerdown", function (e) {
      if (e.target.closest(".zoom-buttons, .wg-minimap")) { return; }
      pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      moved = 0;
      var ids = Object.keys(pointers);
      if (ids.length === 2) {
        var a = pointers[ids[0]], b = pointers[ids[1]];
        pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) || 1, scale: view.scale };
      }
    });
    on(box, "pointermove", function (e) {
      var p = pointers[e.pointerId];
      if (!p) { return; }
      var ids = Object.keys(pointers);
      moved += Math.abs(e.clientX - p.x) + Math.abs(e.clientY - p.y);
      pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      if (ids.length === 2 && pinch) {
        var a = pointers[ids[0]], b = pointers[ids[1]];
        var r = box.getBoundingClientRect();
        zoomAt(pinch.scale * Math.hypot(a.x - b.x, a.y - b.y) / pinch.d / view.scale,
          (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
      } else if (ids.length === 1) {
        view.x += e.clientX - p.x;
        view.y += e.clientY - p.y;
        apply();
      }
    });
    function up(e) { delete pointers[e.pointerId]; if (Object.keys(pointers).length < 2) { pinch = null; } }
    on(box, "pointerup", up);
    on(box, "pointercancel", up);
    // A drag or a pinch is not a tap: its click picks nothing up.
    on(box, "click", function (e) {
      if (moved > 12 && !e.target.closest(".zoom-buttons")) { e.stopPropagation(); e.preventDefault(); }
      moved = 0;
    }, { capture: true });
    on(window, "resize", function () { apply(); });
    // On a phone the box is most of the screen's height (kurier.css) and the map, wider than
    // tall, would fill a third of it at full width: it opens zoomed to fill the box's height
    // (the middle of the empire; zoom out or 0 for the whole width). Once: an update in place
    // keeps the player's zoom.
    if (!view.fitted && box.clientWidth < 600 && layer.offsetHeight > 0) {
      view.fitted = true;
      var fill = height() / layer.offsetHeight;
      if (fill > 1) {
        view.scale = fill;
        view.x = (box.clientWidth - layer.offsetWidth * fill) / 2;
        view.y = 0;
      }
    }
    apply();
    box.wgZoomTo = function (x, y, scale) {  // centre SVG point (x, y) at this scale
      var vb = svg.viewBox.baseVal;
      var k = layer.offsetWidth / vb.width;
      view.scale = scale;
      view.x = box.clientWidth / 2 - (x - vb.x) * k * scale;
      view.y = height() / 2 - (y - vb.y) * k * scale;
      apply(true);
    };
  }

  // -- Layers: zones of control, regions, rivers, cities on demand; this phase's moves -------
  // Which layers are hidden or shown outlives an update in place, as the zoom does.
  var shown = { zoc: false, regions: true, rivers: true, cities: true, minimap: true };
  function layers(box) {
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
  var battleSeen = {};
  function battleMarks(box) {
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

  // -- The table ---------------------------------------------------------------------------
  function init() {
    window.kurierWargame = null;
    listening.abort();
    listening = new AbortController();
    var box = document.querySelector(".wargame-board");
    words = JSON.parse((box && box.dataset.words) || "{}");
    // The layer toggles first: they widen the zoom buttons' bar, which the map's fit measures.
    if (box) { layers(box); zoom(box); }
    if (box) { battleMarks(box); }
    var dataNode = document.getElementById("wargame-data");
    var page = document.querySelector("[data-game]");
    var svg = box && box.querySelector("svg");
    if (!dataNode || !page || !svg) { return; }
    var game = page.getAttribute("data-game");
    var data = JSON.parse(dataNode.textContent);
    var places = data.places || {};
    var current = data.table;
    var groups = [], before = [];  // staged parts: {moves, label, path}; the table before each
    var picked = null, march = null, target = null, attackers = [], razing = [], busy = false;
    var route = null;  // the last staged march, open to waypoints and to its command units (march below)
    var pieces = document.querySelector(".pieces");
    var choices = document.querySelector(".pieces .choices");
    var orders = document.querySelector(".secret-orders .orders-choices");
    var bar = document.querySelector(".confirm-bar");
    var info = document.createElement("p");
    info.className = "target-info";
    info.setAttribute("aria-live", "polite");
    if (pieces) { pieces.appendChild(info); }
    // Lit and closed hexes lie under the counters (a counter stays tappable on a lit hex);
    // the rings and the drawn paths over everything.
    var under = el("g", { id: "wg-under" });
    var overlay = el("g", { id: "wg-overlay" });
    var firstUnit = svg.querySelector("g[id^='unit-']");
    if (firstUnit) { firstUnit.parentNode.insertBefore(under, firstUnit); } else { svg.appendChild(under); }
    svg.appendChild(overlay);

    function staged() { return groups.reduce(function (all, g) { return all.concat(g.moves); }, []); }
    function kind(a) { return a.n.split(" ")[0]; }
    function actionsOf(k) { return current.actions.filter(function (a) { return kind(a) === k; }); }
    function byId(id) { return svg.querySelector("[id='" + String(id).replace(/'/g, "") + "']"); }
    function hexShape(label) { var g = byId("hex-" + label); return g && g.querySelector("polygon"); }
    function centreOf(label) {
      var shape = hexShape(label);
      if (!shape) { return null; }
      var pts = points(shape);
      return pts.reduce(function (s, p) { return [s[0] + p[0] / pts.length, s[1] + p[1] / pts.length]; }, [0, 0]);
    }
    function unitOf(pick) { return pick && pick.indexOf("unit:") === 0 ? pick.slice(5) : null; }

    // A hex lit on the overlay (clickable), with its cost or why it is closed.
    function litHex(label, cls, title, text) {
      var shape = hexShape(label);
      if (!shape) { return null; }
      var g = el("g", { "class": cls, "data-hex": label });
      g.appendChild(el("polygon", { points: shape.getAttribute("points") }));
      var t = el("title");
      t.textContent = title;
      g.appendChild(t);
      if (text) {
        var c = centreOf(label);
        var label2 = el("text", { x: c[0], y: c[1] + 5, "text-anchor": "middle", "font-size": 14 });
        label2.textContent = text;
        g.appendChild(label2);
      }
      if (cls.indexOf("wg-lit") >= 0) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", title);
      }
      under.appendChild(g);
      return g;
    }
    function ring(unit, cls) {
      var g = byId("unit-" + unit);
      if (!g) { return; }
      var b = g.getBBox();
      overlay.appendChild(el("rect", { "class": cls, x: b.x - 3, y: b.y - 3, width: b.width + 6, height: b.height + 6, rx: 4 }));
      g.classList.add("wg-pickable");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", places["unit-" + unit] || unit);
    }
    function path(labels, cls) {
      var pts = labels.map(centreOf).filter(Boolean).map(function (p) { return p.join(","); });
      if (pts.length > 1) { overlay.appendChild(el("polyline", { "class": cls, points: pts.join(" ") })); }
    }

    function render() {
      overlay.textContent = "";
      under.textContent = "";
      svg.querySelectorAll(".wg-pickable").forEach(function (g) {
        g.classList.remove("wg-pickable");
        g.removeAttribute("tabindex");
        g.removeAttribute("role");
      });
      if (choices) { choices.textContent = ""; }
      if (orders) { orders.textContent = ""; }
      groups.forEach(function (g) { if (g.path) { path(g.path, "wg-path wg-staged"); } });
      var step = current.decision && current.decision.step;
      var picks = {};
      current.actions.forEach(function (a) { (picks[a.pick] = picks[a.pick] || []).push(a); });
      // Counters to pick up (a march, a retreat, an advance).
      Object.keys(picks).forEach(function (p) {
        var unit = unitOf(p);
        if (unit) { ring(unit, unit === picked ? "wg-ring wg-picked" : "wg-ring"); }
      });
      under.removeAttribute("data-march");
      if (picked && march && march.unit === picked) {
        under.setAttribute("data-march", picked);
        if (march.from) { path([march.from], "wg-path"); }
        Object.keys(march.closed || {}).forEach(function (h) { litHex(h, "wg-closed", h + ": " + march.closed[h], "\u2715"); });
        Object.keys(march.reach || {}).forEach(function (h) {
          var r = march.reach[h];
          litHex(h, "wg-lit", h + ": " + r.cost + (r.stop ? " \u2014 " + r.stop : ""), String(r.cost));
        });
        markCarried(march);
        if (march.stuck) { info.textContent = picked + ": " + march.stuck; }
      } else if (picked && !(picks["unit:" + picked] || []).some(function (a) { return kind(a) === "move"; })) {
        (picks["unit:" + picked] || []).forEach(function (a) { if (a.target) { litHex(a.target.slice(4), "wg-lit", a.n); } });
      }
      renderRoute();
      renderAttack(picks);
      renderButtons(picks, step);
      if (bar) {
        bar.hidden = groups.length === 0;
        document.body.classList.toggle("staging", groups.length > 0);
        bar.querySelector(".staged-text").textContent = groups.map(function (g) { return g.label; }).join(" \u00B7 ");
        bar.querySelector(".confirm").disabled = busy;
        bar.querySelector(".undo").disabled = busy;
        bar.querySelector(".confirm").hidden = !groups.length;
        bar.querySelector(".undo").hidden = !groups.length;
      }
    }

    // Combat: the targets lit; a target chosen, its possible attackers ringed, tapped in or out.
    function renderAttack(picks) {
      var attacks = picks.attack || [];
      if (!attacks.length) { return; }
      var targets = {};
      attacks.forEach(function (a) { targets[a.target] = true; });
      Object.keys(targets).forEach(function (t) {
        litHex(t.slice(4), t === target ? "wg-lit wg-target" : "wg-lit", say("attack_here", { place: places[t] || t }));
      });
      if (!target) { return; }
      var here = attacks.filter(function (a) { return a.target === target; });
      var can = {}, must = null;
      here.forEach(function (a) {
        a.attackers.forEach(function (u) { can[u] = true; });
        must = must === null ? a.attackers.slice() : must.filter(function (u) { return a.attackers.indexOf(u) >= 0; });
      });
      Object.keys(can).forEach(function (u) {
        ring(u, attackers.indexOf(u) >= 0 ? "wg-ring wg-attacker" : "wg-ring");
      });
      var match = here.filter(function (a) {
        return a.attackers.length === attackers.length && a.attackers.every(function (u) { return attackers.indexOf(u) >= 0; });
      })[0];
      var odds = match ? " " + match.attack + " : " + match.defence + (match.column ? " \u2192 " + match.column : "") : "";
      info.textContent = match ? match.n + " \u2014" + odds : (must && must.length ? say("must_attack", { units: must.join(", ") }) : say("tap_attackers"));
      var go = button((current.labels.attack || "") + odds, function () { if (match) { stage([match.n], match.n, null); } }, "option wg-attack");
      go.disabled = !match || busy;
      choices.appendChild(go);
    }

    function renderButtons(picks, step) {
      if (!choices) { return; }
      Object.keys(picks).forEach(function (p) {
        if (unitOf(p) || p === "attack" || p === "note" || p === "raze") { return; }
        var cls = p.indexOf("card:") === 0 ? "piece card-piece wg-card" : "piece gen";
        var label = current.labels[p] || picks[p][0].n;
        var b = button(label, function () { stage([picks[p][0].n], picks[p][0].n, null); }, cls);
        b.disabled = busy;
        choices.appendChild(b);
      });
      if (picks.raze) {
        var all = {};
        picks.raze.forEach(function (a) { a.hexes.forEach(function (h) { all[h] = true; }); });
        Object.keys(all).forEach(function (h) { litHex(h.slice(4), razing.indexOf(h) >= 0 ? "wg-lit wg-target" : "wg-lit", h); });
        var match = picks.raze.filter(function (a) {
          return a.hexes.length === razing.length && a.hexes.every(function (h) { return razing.indexOf(h) >= 0; });
        })[0];
        var raze = button(match ? match.n : "\u2026", function () { if (match) { stage([match.n], match.n, null); } }, "option");
        raze.disabled = !match || busy;
        choices.appendChild(raze);
      }
      if (picks.note) { renderNotes(picks.note); }
    }

    // The secret orders: a counter tapped on the map, then (the Barbarian) Aetius's round.
    function renderNotes(notes) {
      var units = {};
      notes.forEach(function (a) { units[a.unit] = true; });
      Object.keys(units).forEach(function (u) { ring(u, u === picked ? "wg-ring wg-picked" : "wg-ring"); });
      var place = orders || choices;
      var mine = notes.filter(function (a) { return a.unit === picked; });
      info.textContent = picked ? picked : say("orders_tap", { orders: current.labels.note || "" });
      mine.forEach(function (a) {
        var label = a.aetius ? say("aetius_round", { round: a.aetius }) : a.n;
        place.appendChild(button(label, function () { stage([a.n], a.n, null); }, "option wg-round"));
      });
    }

    function stage(moves, label, walked) {
      if (busy) { return; }
      before.push(current);
      groups.push({ moves: moves, label: label, path: walked });
      picked = null; march = null; target = null; attackers = []; razing = [];
      ask("");
    }
    function ask(extra) {
      busy = true;
      render();
      return window.kurierTableKit.ask(game, staged(), extra).then(function (got) {
        busy = false;
        if (!got[0]) { undo(); window.kurierTableKit.showError(got[1].error, bar || pieces); return; }
        if (got[1].march) { march = got[1].march; } else { current = got[1]; }
        render();
      }).catch(function () { busy = false; undo(); });
    }
    function undo() {
      if (unwaypoint()) { return; }
      if (!groups.length) { picked = null; march = null; target = null; attackers = []; render(); return; }
      groups.pop();
      current = before.pop();
      picked = null; march = null; target = null; attackers = [];
      render();
      if (!groups.length) { document.dispatchEvent(new CustomEvent("kurier:idle")); }
    }
    function confirm() {
      if (!groups.length || busy) { return; }
      busy = true;
      render();
      window.kurierTableKit.send(game, staged()).then(function (got) {
        busy = false;
        if (!got[0]) {
          window.kurierTableKit.showError(got[1].error, bar || pieces);
          groups = []; before = []; current = data.table; render(); return;
        }
        groups = []; before = [];
        document.dispatchEvent(new CustomEvent("kurier:played", { detail: got[1] }));
      }).catch(function () { busy = false; render(); });
    }

    function tapUnit(unit) {
      var picks = {};
      current.actions.forEach(function (a) { (picks[a.pick] = picks[a.pick] || []).push(a); });
      if (target && (picks.attack || []).some(function (a) { return a.target === target && a.attackers.indexOf(unit) >= 0; })) {
        var i = attackers.indexOf(unit);
        if (i >= 0) { attackers.splice(i, 1); } else { attackers.push(unit); }
        render();
        return;
      }
      if ((picks.note || []).some(function (a) { return a.unit === unit; })) {
        picked = picked === unit ? null : unit;
        var only = (picks.note || []).filter(function (a) { return a.unit === unit; });
        if (picked && only.length === 1 && !only[0].aetius) { stage([only[0].n], only[0].n, null); return; }
        render();
        return;
      }
      if (!picks["unit:" + unit]) { info.textContent = places["unit-" + unit] || unit; return; }
      if (picked === unit) { picked = null; march = null; render(); return; }
      picked = unit;
      march = null;
      info.textContent = places["unit-" + unit] || unit;
      var moving = picks["unit:" + unit].some(function (a) { return kind(a) === "move"; });
      if (moving) { ask("&unit=" + encodeURIComponent(unit)); } else { render(); }
    }
    function tapHex(label) {
      var picks = {};
      current.actions.forEach(function (a) { (picks[a.pick] = picks[a.pick] || []).push(a); });
      var id = "hex-" + label;
      if (throughHex(label)) { return; }
      if (picked && march && march.unit === picked && march.reach[label]) {
        stageMarch(label);
        return;
      }
      if (picked) {
        var one = (picks["unit:" + picked] || []).filter(function (a) { return a.target === id; })[0];
        if (one) { stage([one.n], one.n, null); return; }
      }
      if ((picks.attack || []).some(function (a) { return a.target === id; })) {
        target = target === id ? null : id;
        attackers = [];
        if (target) {  // the units bound to this battle (4.1) are in every grouping: start with them
          var here = picks.attack.filter(function (a) { return a.target === id; });
          attackers = here[0].attackers.filter(function (u) { return here.every(function (a) { return a.attackers.indexOf(u) >= 0; }); });
        }
        render();
        return;
      }
      if (picks.raze && picks.raze.some(function (a) { return a.hexes.indexOf(id) >= 0; })) {
        var i = razing.indexOf(id);
        if (i >= 0) { razing.splice(i, 1); } else { razing.push(id); }
        render();
      }
    }

    // -- A march's route: waypoints and the command units going along ------------------------
    // The counter's march is staged as soon as its hex is tapped, and stays open: a lit hex
    // tapped then is a waypoint (the march goes start → waypoints → the hex, each leg the
    // server's, /staged?unit=…&via=…, from the state the leg before left), Undo takes back
    // the last waypoint; the command units stacked with the counter are toggles (on as the
    // server offers them, /staged?…&carry=…), their steps staged with the counter's. The
    // server decides every leg and step; the page shows and stages.
    var kit = window.kurierTableKit;
    var carryBox = null;
    function enc(text) { return encodeURIComponent(text); }
    function carriedOn(m) { return (m.carry || []).filter(function (c) { return c.on; }).map(function (c) { return c.unit; }); }
    function marchLabel(unit, m, dest) {
      var r = m.reach[dest], names = Object.keys(r.carried || {});
      return unit + (names.length ? " + " + names.join(" + ") : "") + " \u2192 " +
        (m.via || []).concat([dest]).join(" \u2192 ") + " (" + r.cost + ")";
    }
    // Where a command unit going along stops short of the counter's hex (its movement used,
    // a river): said on each lit hex, and the hex marked.
    function shortOf(r, dest) {
      return Object.keys(r.carried || {}).filter(function (u) { return r.carried[u] !== dest; })
        .map(function (u) { return say("stops_at", { unit: u, hex: r.carried[u] }); });
    }
    function markCarried(m) {
      under.querySelectorAll(".wg-lit").forEach(function (g) {
        var h = g.getAttribute("data-hex"), r = m.reach[h];
        var short = r ? shortOf(r, h) : [];
        if (!short.length) { return; }
        g.classList.add("wg-partial");
        var t = g.querySelector("title");
        t.textContent += " \u2014 " + short.join(", ");
        g.setAttribute("aria-label", t.textContent);
      });
    }
    function routeOpen() {
      return !!route && !picked && groups.length > 0 && groups[groups.length - 1] === route.group;
    }
    function stageMarch(label) {
      var m = march, unit = picked, r = m.reach[label], n = groups.length;
      stage(r.steps, marchLabel(unit, m, label), [m.from].concat(r.path));
      if (groups.length === n) { return; }
      route = { unit: unit, dest: label, march: m, via: m.via || [], carry: carriedOn(m),
        group: groups[groups.length - 1], history: [] };
    }
    // The open march asked again through ``via`` with ``carry`` from the state before it; its
    // staged steps replaced when its hex is still reached that way.
    function reroute(via, carry) {
      var g = route.group, open = route;
      var moves = groups.slice(0, groups.length - 1).reduce(function (all, x) { return all.concat(x.moves); }, []);
      var extra = "&unit=" + enc(open.unit) + (via.length ? "&via=" + enc(via.join(",")) : "") + "&carry=" + enc(carry.join(","));
      busy = true;
      render();
      kit.ask(game, moves, extra).then(function (got) {
        busy = false;
        if (!got[0]) { kit.showError(got[1].detail || got[1].error, bar || pieces); render(); return; }
        var m = got[1].march, r = m && m.reach[open.dest];
        if (route !== open) { render(); return; }
        if (!r) {
          render();
          info.textContent = say("not_through", { hex: open.dest, via: via[via.length - 1] });
          return;
        }
        open.history.push({ via: open.via, carry: open.carry, march: open.march, moves: g.moves,
          path: g.path, label: g.label, table: current });
        open.via = via; open.carry = carry; open.march = m;
        g.moves = r.steps; g.path = [m.from].concat(r.path); g.label = marchLabel(open.unit, m, open.dest);
        ask("");  // what may follow the march as it now goes
      }).catch(function () { busy = false; render(); });
    }
    function throughHex(label) {
      if (!routeOpen() || busy || label === route.dest || !route.march.reach[label]) { return false; }
      reroute(route.via.concat([label]), route.carry);
      return true;
    }
    function unwaypoint() {
      if (!routeOpen() || busy || !route.history.length) { return false; }
      var h = route.history.pop(), g = route.group;
      route.via = h.via; route.carry = h.carry; route.march = h.march;
      g.moves = h.moves; g.path = h.path; g.label = h.label;
      current = h.table;
      render();
      return true;
    }
    function toggleCarry(m, unit) {
      var on = carriedOn(m), i = on.indexOf(unit);
      if (i >= 0) { on.splice(i, 1); } else { on.push(unit); }
      if (picked) { ask("&unit=" + enc(picked) + "&carry=" + enc(on.join(","))); } else if (routeOpen()) { reroute(route.via, on); }
    }
    function renderRoute() {
      if (!carryBox && pieces) {
        carryBox = document.createElement("div");
        carryBox.className = "wg-carry";
        carryBox.setAttribute("role", "group");
        carryBox.setAttribute("aria-label", say("carry_group"));
        pieces.appendChild(carryBox);
      }
      if (carryBox) { carryBox.textContent = ""; }
      var open = routeOpen();
      if (!open && !picked) { route = null; }
      var m = picked ? (march && march.unit === picked ? march : null) : (open ? route.march : null);
      if (m && carryBox) {
        (m.carry || []).forEach(function (c) {
          var b = button("\u2691 " + c.unit, function () { toggleCarry(m, c.unit); }, "piece gen wg-carry-toggle");
          b.setAttribute("aria-pressed", c.on ? "true" : "false");
          b.title = say(c.on ? "goes_along" : "stays", { unit: c.unit });
          b.disabled = busy;
          carryBox.appendChild(b);
        });
        var on = carriedOn(m);
        if (picked && on.length) {
          info.textContent = say("with_carried", { unit: places["unit-" + picked] || picked, units: on.join(", ") });
        }
      }
      if (!open) { return; }
      route.via.forEach(function (h) {
        var c = centreOf(h);
        if (c) { overlay.appendChild(el("circle", { "class": "wg-waypoint", cx: c[0], cy: c[1], r: 10 })); }
      });
      var dest = litHex(route.dest, "wg-dest", route.dest + ": " + route.group.label);
      if (dest) { dest.setAttribute("data-dest", route.unit); }
      Object.keys(route.march.reach).forEach(function (h) {
        if (h !== route.dest) { litHex(h, "wg-lit wg-via", say("go_through", { hex: h, cost: route.march.reach[h].cost })); }
      });
      markCarried(route.march);
      var r = route.march.reach[route.dest], short = r ? shortOf(r, route.dest) : [];
      info.textContent = say(route.via.length ? "route_undo" : "route",
        { march: route.group.label + (short.length ? " \u2014 " + short.join(", ") : "") });
    }

    // The lit or closed hex under a tapped counter, if any.
    function hexAt(x, y, cls) {
      return document.elementsFromPoint(x, y).map(function (n) { return n.closest && n.closest(cls); })
        .filter(Boolean)[0] || null;
    }
    on(svg, "click", function (e) {
      var unit = e.target.closest("g[id^='unit-']");
      var lit = e.target.closest(".wg-lit") || (unit && hexAt(e.clientX, e.clientY, ".wg-lit"));
      // A counter picked up goes to a lit hex even where another counter stands on it.
      var other = picked && lit && unit && unit.id.slice(5) !== picked;
      if (unit && unit.classList.contains("wg-pickable") && !other) { tapUnit(unit.id.slice(5)); return; }
      if (lit) { tapHex(lit.getAttribute("data-hex")); return; }
      var closed = e.target.closest(".wg-closed") || hexAt(e.clientX, e.clientY, ".wg-closed");
      if (closed) { info.textContent = closed.querySelector("title").textContent; return; }
      if (unit) { tapUnit(unit.id.slice(5)); }
    });
    on(svg, "keydown", function (e) {
      if (e.key !== "Enter" && e.key !== " ") { return; }
      var t = e.target;
      if (t.classList && t.classList.contains("wg-lit")) { e.preventDefault(); tapHex(t.getAttribute("data-hex")); }
      else if (t.id && t.id.indexOf("unit-") === 0) { e.preventDefault(); tapUnit(t.id.slice(5)); }
    });
    if (bar) {
      bar.querySelector(".confirm").addEventListener("click", confirm);
      bar.querySelector(".undo").addEventListener("click", undo);
    }
    document.onkeydown = function (e) {  // one handler, replaced by each init (as table.js's)
      if (e.key === "Escape" && !(e.target.closest && e.target.closest("input, textarea, select"))) {
        route = null;
        picked = null; march = null; target = null; attackers = []; razing = []; render();
      }
    };
    window.kurierTable = { staged: staged };
    window.kurierWargame = {
      staged: staged,
      // Where a counter or hex is, for a test or a link: centre it on the screen, zoomed in.
      show: function (id, scale) {
        var g = byId(id);
        if (!g || !box.wgZoomTo) { return; }
        var b = g.getBBox();
        box.wgZoomTo(b.x + b.width / 2, b.y + b.height / 2, scale || 6);
      }
    };
    render();
  }

  var previous = window.kurierTableInit;
  window.kurierTableInit = function () {
    if (previous) { previous(); }
    init();
  };
  document.addEventListener("DOMContentLoaded", init);
})();
