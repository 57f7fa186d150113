// The table (issue 32): play on the board. The server hands the page its legal actions, each
// with what to pick (a card, a tile, a building…) and where it goes on the board (an element id
// of the inline SVG), as Lichess's chessground is handed its legal destinations. The page lights
// the places up, stages the chosen parts, asks the server what may follow each part
// (/games/<id>/staged) and sends them all with Confirm as one request (/games/<id>/moves,
// applied as one atomic change). No rule of any game is decided here.
// The table's questions to the server, also the wargame's (wargame.js): what may follow the
// staged actions (``extra``: more of the query, e.g. a counter picked up) and Confirm, which
// sends them all as one request. Each answers [ok, body].
window.kurierTableKit = {
  ask: function (game, moves, extra) {
    var query = moves.map(function (m) { return "m=" + encodeURIComponent(m); }).join("&") + (extra || "");
    return fetch("/games/" + encodeURIComponent(game) + "/staged?" + query, {
      credentials: "same-origin", headers: { Accept: "application/json" }
    }).then(function (r) { return r.json().then(function (body) { return [r.ok, body]; }); });
  },
  send: function (game, moves) {
    var body = new URLSearchParams();
    var csrf = document.querySelector("input[name=csrf]");
    body.append("csrf", csrf ? csrf.value : "");
    moves.forEach(function (m) { body.append("m", m); });
    return fetch("/games/" + encodeURIComponent(game) + "/moves", {
      method: "POST", credentials: "same-origin", body: body,
      headers: { Accept: "application/json" }
    }).then(function (r) { return r.json().then(function (b) { return [r.ok, b]; }); });
  },
  showError: function (text, before) {
    var note = document.querySelector(".table-error");
    if (!note) {
      note = document.createElement("p");
      note.className = "note table-error";
      note.setAttribute("role", "alert");
      before.insertAdjacentElement("beforebegin", note);
    }
    note.textContent = text || "refused";
  },
  button: function (label, onClick, cls) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    if (cls) { b.className = cls; }
    b.addEventListener("click", onClick);
    return b;
  }
};
// kurierTableInit runs on load and again after kurier.js swapped a newer version in.
window.kurierTableInit = function () {
  "use strict";
  window.kurierTable = null;
  var dataNode = document.getElementById("table-data");
  var page = document.querySelector("[data-game]");
  if (!dataNode || !page) { return; }
  var game = page.getAttribute("data-game");
  var data = JSON.parse(dataNode.textContent);
  var places = data.places || {};
  var current = data.table;
  var staged = [], before = [], stagedTargets = [], stagedActions = [];
  var pick = null, chosen = [], busy = false;
  // The last staged part draws what nobody has seen yet (a building turned up, a map tile or
  // cards drawn): the server does not try it (what would follow tells what is drawn, and the
  // player could take it back and choose again), so nothing may be staged after it; Confirm
  // sends it with the parts before it and the turn goes on on the state that shows the draw.
  var draws = false;
  // Brings the lit places into the board's visible frame (set by zoom() below).
  var fit = function () {};
  // A map tile (Attika): the rotation shown, and the place pointed at before it is chosen.
  var tileRot = 0, pointed = null;
  var svg = document.querySelector(".table-board svg");
  var pieces = document.querySelector(".pieces");
  var choices = document.querySelector(".pieces .choices");
  var bar = document.querySelector(".confirm-bar");
  var rotateButton = bar && bar.querySelector(".rotate");
  var info = null;
  if (pieces) {
    info = document.createElement("p");
    info.className = "target-info";
    info.setAttribute("aria-live", "polite");
    pieces.appendChild(info);
  }
  var MAX_CHOICES = 20;

  // The player's "confirm moves" setting: always (the default: in a slow game a slip costs
  // days), never, or auto: on a touch or narrow screen, where a tap is easily a slip, a
  // complete move waits for Confirm; with a mouse it is sent at once.
  function confirmFirst() {
    var setting = page.getAttribute("data-confirm") || "always";
    if (setting !== "auto") { return setting === "always"; }
    return window.matchMedia("(pointer: coarse), (max-width: 600px)").matches;
  }

  function byPick() {
    var out = {};
    current.actions.forEach(function (a) { (out[a.pick] = out[a.pick] || []).push(a); });
    return out;
  }
  function sameCards(a, b) {
    return a.length === b.length && a.slice().sort().join() === b.slice().sort().join();
  }
  var button = window.kurierTableKit.button;
  function clearTargets() {
    if (!svg) { return; }
    svg.querySelectorAll(".legal").forEach(function (el) {
      el.classList.remove("legal");
      el.removeAttribute("tabindex");
      el.removeAttribute("role");
      el.removeAttribute("aria-label");
    });
  }
  function target(id) { return svg ? svg.querySelector("[id='" + id.replace(/'/g, "") + "']") : null; }

  function render() {
    var picks = byPick();
    var cardMode = pick && (picks[pick] || []).some(function (a) { return a.cards; });
    if (pieces) {
      pieces.querySelectorAll("[data-pick]").forEach(function (el) {
        if (el.classList.contains("gen")) { return; }
        var isCard = el.classList.contains("card-piece");
        el.disabled = busy || !(picks[el.dataset.pick] || (cardMode && isCard));
        el.setAttribute("aria-pressed", el.dataset.pick === pick ? "true" : "false");
        var mark = el.querySelector(".chosen");
        if (mark) {
          var n = chosen.filter(function (c) { return c === el.dataset.card; }).length;
          mark.hidden = !(cardMode && n);
          mark.textContent = String(n);
        }
      });
    }
    if (choices) {
      choices.textContent = "";
      Object.keys(picks).forEach(function (p) {
        if (pieces.querySelector("[data-pick='" + p + "']:not(.gen)")) { return; }
        var label = current.labels[p] || (picks[p].length === 1 ? picks[p][0].n : p);
        var b = button(label, function () { choose(p); }, "piece gen");
        b.dataset.pick = p;
        b.disabled = busy;
        b.setAttribute("aria-pressed", p === pick ? "true" : "false");
        choices.appendChild(b);
      });
      if (pick && picks[pick]) { renderOptions(picks[pick], cardMode); }
    }
    clearTargets();
    if (pick && picks[pick] && svg) {
      picks[pick].forEach(function (a) {
        var el = a.target && target(a.target);
        if (!el) { return; }
        el.classList.add("legal");
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "button");
        var many = picks[pick].filter(function (b) { return b.target === a.target; }).length;
        el.setAttribute("aria-label", (places[a.target] || a.target) + "; " + (many > 1 ? pick : a.n) +
          (a.cost ? "; " + a.cost : ""));
        el.dataset.n = a.n;
      });
    }
    svg && svg.querySelectorAll(".staged").forEach(function (el) { el.classList.remove("staged"); });
    stagedTargets.forEach(function (id) { var el = id && target(id); if (el) { el.classList.add("staged"); } });
    renderTile();
    if (bar) {
      // Shown while something is staged, or a map tile is being turned before it is placed.
      bar.hidden = staged.length === 0 && (!rotateButton || rotateButton.hidden);
      document.body.classList.toggle("staging", staged.length > 0);
      bar.querySelector(".staged-text").textContent = staged.join(" · ") +
        (current.actions.length ? "" : " \u2714");
      var note = bar.querySelector(".draws-note");
      if (note) { note.hidden = !draws; }
      bar.querySelector(".confirm").disabled = busy;
      bar.querySelector(".confirm").hidden = !staged.length;
      bar.querySelector(".undo").hidden = !staged.length;
      if (rotateButton) { rotateButton.disabled = busy; }
      bar.querySelector(".undo").disabled = busy;
    }
  }

  // -- A map tile previewed in place (Attika) -------------------------------------------
  // The server sends the drawn tile's seven hexes per rotation as offsets from its centre with
  // their fills (engine/attika/targets.py tile_shape); the picture drew every place a legal
  // placement may cover. A preview fills those places; nothing here decides where it fits.
  function rotations(actions, id) {
    return actions.filter(function (a) { return a.rotation !== undefined && a.rotation !== null && a.target === id; });
  }
  function tileAt(actions, id) {
    var here = rotations(actions, id);
    return here.filter(function (a) { return a.rotation === tileRot; })[0] || here[0] || null;
  }
  function clearPreview() {
    if (!svg) { return; }
    svg.querySelectorAll(".preview").forEach(function (g) {
      var shape = g.querySelector("polygon");
      shape.setAttribute("fill", g.dataset.fill);
      g.classList.remove("preview");
    });
  }
  function preview(action, shapes) {
    clearPreview();
    if (!action || !shapes || !shapes[action.rotation]) { return; }
    var at = action.target.slice(4).split(",").map(Number);
    shapes[action.rotation].forEach(function (h) {
      var g = target("hex-" + (at[0] + h[0]) + "," + (at[1] + h[1]));
      var shape = g && g.querySelector("polygon");
      if (!shape) { return; }
      if (!g.classList.contains("preview")) { g.dataset.fill = shape.getAttribute("fill"); }
      g.classList.add("preview");
      shape.setAttribute("fill", h[2]);
    });
  }
  function lastTile() {
    var last = stagedActions[stagedActions.length - 1];
    return last && last.rotation !== undefined && last.rotation !== null ? last : null;
  }
  function renderTile() {
    var picks = byPick();
    var choosing = pick && (picks[pick] || []).some(function (a) { return a.rotation !== undefined && a.rotation !== null; });
    var placed = lastTile();
    if (rotateButton) { rotateButton.hidden = !(choosing || placed); }
    if (choosing && pointed) {
      preview(tileAt(picks[pick], pointed), current.tile);
    } else if (placed) {
      preview(placed, before[before.length - 1].table.tile);
    } else {
      clearPreview();
    }
  }
  function rotate() {
    if (busy) { return; }
    var picks = byPick();
    var placed = lastTile();
    if (pick && rotations(picks[pick] || [], pointed).length) {
      var here = rotations(picks[pick], pointed).map(function (a) { return a.rotation; });
      tileRot = here[(here.indexOf(tileRot) + 1) % here.length];
      render();
    } else if (placed) {
      var back = before[before.length - 1].table;
      var all = rotations(back.actions, placed.target);
      var next = all[(all.indexOf(all.filter(function (a) { return a.rotation === placed.rotation; })[0]) + 1) % all.length];
      tileRot = next.rotation;
      // Take the staged placement back and stage the turned one (no idle in between).
      staged.pop(); stagedActions.pop();
      var prev = before.pop();
      current = prev.table;
      stagedTargets = prev.targets;
      stage(next);
    } else if (pick) {
      tileRot = (tileRot + 1) % 6;
      render();
    }
  }
  function point(el) {
    var picks = byPick();
    pointed = el ? el.id : null;
    var here = (picks[pick] || []).filter(function (a) { return el && a.target === el.id; });
    if (info) {
      var a = tileAt(here, pointed) || here[0];
      info.textContent = a ? (places[a.target] || a.target) + ": " + a.n + (a.cost ? " \u2014 " + a.cost : "") : "";
    }
    renderTile();
  }

  // What a selected pick offers besides board places: buttons (a few), or the cards to tap.
  function renderOptions(actions, cardMode) {
    if (cardMode) {
      var match = actions.filter(function (a) { return a.cards && sameCards(a.cards, chosen); })[0];
      var lay = button(match ? match.n : "\u2026", function () { if (match) { stage(match); } }, "lay");
      lay.disabled = !match || busy;
      choices.appendChild(lay);
      return;
    }
    var loose = actions.filter(function (a) { return !a.target || !target(a.target); });
    var sameTarget = actions.length > 1 && actions.every(function (a) { return a.target && a.target === actions[0].target; });
    if (sameTarget) { loose = actions; }
    loose.slice(0, MAX_CHOICES).forEach(function (a) {
      choices.appendChild(button(a.n, function () { stage(a); }, "option"));
    });
    if (loose.length > MAX_CHOICES) {
      var more = document.createElement("span");
      more.textContent = "+" + (loose.length - MAX_CHOICES) + " \u2026";
      choices.appendChild(more);
    }
  }

  function choose(p) {
    if (busy) { return; }
    var picks = byPick();
    if (pick && (picks[pick] || []).some(function (a) { return a.cards; })) {
      // Tapping hand cards while laying cards in a conflict (or swapping): count them.
      var el = pieces.querySelector("[data-pick='" + p + "']");
      if (el && el.classList.contains("card-piece") && p !== pick) {
        var id = el.dataset.card, have = Number(el.dataset.count);
        var n = chosen.filter(function (c) { return c === id; }).length;
        if (n < have) { chosen.push(id); } else { chosen = chosen.filter(function (c) { return c !== id; }); }
        render();
        return;
      }
    }
    if (pick === p) { pick = null; chosen = []; render(); return; }
    pick = p;
    chosen = [];
    var options = picks[p] || [];
    if (options.length === 1 && !options[0].target && !options[0].cards) { stage(options[0]); return; }
    render();
    fit();
    var first = svg && svg.querySelector(".legal");
    if (first && document.activeElement && document.activeElement.closest(".pieces")) {
      // Keyboard players go on to the board; pointer users keep their place.
      if (document.activeElement.matches(":focus-visible")) { first.focus(); }
    }
  }

  function stage(action) {
    before.push({ table: current, targets: stagedTargets.slice() });
    staged.push(action.n);
    stagedActions.push(action);
    stagedTargets.push(action.target || null);
    pick = null;
    chosen = [];
    pointed = null;
    if (info) { info.textContent = ""; }
    ask();
  }

  function ask() {
    busy = true;
    render();
    window.kurierTableKit.ask(game, staged)
      .then(function (got) {
        busy = false;
        if (!got[0] && got[1].draws) {
          // Kept staged, untried: nothing follows it before Confirm (see ``draws``).
          draws = true;
          current = Object.assign({}, current, { actions: [], tile: null });
        } else if (!got[0]) { undo(); showError(got[1].error); return; } else {
          current = got[1];
        }
        render();
        if (!current.actions.length && !confirmFirst()) { confirm(); }
      }).catch(function () { busy = false; undo(); });
  }

  function undo() {
    if (!staged.length) { pick = null; chosen = []; render(); return; }
    staged.pop();
    stagedActions.pop();
    var back = before.pop();
    current = back.table;
    stagedTargets = back.targets;
    draws = false;
    pick = null;
    chosen = [];
    render();
    // Nothing staged any more: a newer version that waited may now be shown (kurier.js).
    if (!staged.length) { document.dispatchEvent(new CustomEvent("kurier:idle")); }
  }

  function showError(text) { window.kurierTableKit.showError(text, bar || pieces); }

  function confirm() {
    if (!staged.length || busy) { return; }
    busy = true;
    render();
    window.kurierTableKit.send(game, staged)
      .then(function (got) {
        busy = false;
        draws = false;
        if (!got[0]) { showError(got[1].error); staged = []; before = []; stagedTargets = []; stagedActions = []; current = data.table; render(); return; }
        staged = []; before = []; stagedTargets = []; stagedActions = [];
        document.dispatchEvent(new CustomEvent("kurier:played", { detail: got[1] }));
      }).catch(function () { busy = false; render(); });
  }

  if (pieces) {
    pieces.addEventListener("click", function (event) {
      var el = event.target.closest("[data-pick]");
      if (el && !el.classList.contains("gen") && !el.disabled) { choose(el.dataset.pick); }
    });
  }
  if (svg) {
    svg.addEventListener("click", function (event) {
      var el = event.target.closest(".legal");
      if (el) { clickTarget(el); }
    });
    svg.addEventListener("pointerover", function (event) {
      var el = event.target.closest(".legal");
      if (el && el.id !== pointed) { point(el); }
    });
    svg.addEventListener("focusin", function (event) {
      var el = event.target.closest(".legal");
      if (el) { point(el); }
    });
    svg.addEventListener("keydown", function (event) {
      var el = event.target.closest(".legal");
      if (!el) { return; }
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); clickTarget(el); }
      if (/^Arrow/.test(event.key)) {
        event.preventDefault();
        var all = Array.prototype.slice.call(svg.querySelectorAll(".legal"));
        var i = all.indexOf(el) + (event.key === "ArrowRight" || event.key === "ArrowDown" ? 1 : -1);
        all[(i + all.length) % all.length].focus();
      }
    });
  }
  function clickTarget(el) {
    var picks = byPick();
    var here = (picks[pick] || []).filter(function (a) { return a.target === el.id; });
    if (here.length === 1) { stage(here[0]); return; }
    var tile = tileAt(here, el.id);
    if (tile) { pointed = null; stage(tile); return; }  // turned afterwards with Rotate (R)
    // Several actions at one place (a map tile's rotations): offer them as choices.
    choices.textContent = "";
    here.forEach(function (a) { choices.appendChild(button(a.n, function () { stage(a); }, "option")); });
  }
  if (bar) {
    bar.querySelector(".confirm").addEventListener("click", confirm);
    bar.querySelector(".undo").addEventListener("click", undo);
    if (rotateButton) { rotateButton.addEventListener("click", rotate); }
  }
  document.onkeydown = function (event) {  // one handler, replaced by each init
    if (event.target.closest && event.target.closest("input, textarea, select")) { return; }
    if (event.key === "Escape") { pick = null; chosen = []; render(); }
    if ((event.key === "r" || event.key === "R") && !event.ctrlKey && !event.metaKey && !event.altKey) { rotate(); }
  };
  // Pinch and double-tap zoom, drag to pan (pointer events; the buttons for mice/keyboards).
  (function zoom() {
    var box = document.querySelector(".table-board");
    var layer = box && box.querySelector(".zoom");
    if (!layer) { return; }
    // On a phone a picture with a side panel (Attika) shows its map alone, at full width.
    var mapBox = svg && svg.getAttribute("data-map-box");
    if (mapBox && box.clientWidth < 600) {
      var parts = mapBox.split(" ");
      svg.setAttribute("viewBox", mapBox);
      svg.setAttribute("width", parts[2]);
      svg.setAttribute("height", parts[3]);
    }
    var scale = 1, x = 0, y = 0, pointers = {}, start = null, lastTap = 0;
    function apply() {
      scale = Math.min(4, Math.max(1, scale));
      var w = box.clientWidth, h = box.clientHeight;
      x = Math.min(0, Math.max(w - w * scale, x));
      y = Math.min(0, Math.max(h - h * scale, y));
      layer.style.transform = "translate(" + x + "px," + y + "px) scale(" + scale + ")";
    }
    function zoomAt(factor, cx, cy) {
      var next = Math.min(4, Math.max(1, scale * factor));
      x = cx - (cx - x) * next / scale;
      y = cy - (cy - y) * next / scale;
      scale = next;
      apply();
    }
    // The lit places of a piece just picked, brought into view the way a map app fits its
    // results: a phone's picture is cut to the map's box, so it is widened to hold them (as
    // little as needed); then, if any lies outside the zoomed frame, the board is panned so
    // that they show, and zoomed out only when they do not fit at the player's zoom.
    fit = function () {
      var lit = svg ? Array.prototype.slice.call(svg.querySelectorAll(".legal")) : [];
      if (!lit.length) { return; }
      var view = svg.viewBox.baseVal, pad = 12;
      var b = lit.map(function (el) { return el.getBBox(); }).reduce(function (u, r) {
        return [Math.min(u[0], r.x), Math.min(u[1], r.y), Math.max(u[2], r.x + r.width), Math.max(u[3], r.y + r.height)];
      }, [Infinity, Infinity, -Infinity, -Infinity]);
      if (view && view.width && (b[0] < view.x || b[1] < view.y || b[2] > view.x + view.width || b[3] > view.y + view.height)) {
        var x0 = Math.min(view.x, b[0] - pad), y0 = Math.min(view.y, b[1] - pad);
        var x1 = Math.max(view.x + view.width, b[2] + pad), y1 = Math.max(view.y + view.height, b[3] + pad);
        svg.setAttribute("viewBox", [x0, y0, x1 - x0, y1 - y0].join(" "));
        svg.setAttribute("width", String(x1 - x0));
        svg.setAttribute("height", String(y1 - y0));
      }
      // In the layer's own (unzoomed) pixels: where the lit places are, and the frame shown.
      var frame = box.getBoundingClientRect();
      var w = box.clientWidth, h = layer.getBoundingClientRect().height / scale;
      var buttons = box.querySelector(".zoom-buttons");
      var shownH = Math.min(h, buttons ? buttons.getBoundingClientRect().top - frame.top : h);
      var l = [Infinity, Infinity, -Infinity, -Infinity];
      lit.forEach(function (el) {
        var r = el.getBoundingClientRect();
        l = [Math.min(l[0], (r.left - frame.left - x) / scale), Math.min(l[1], (r.top - frame.top - y) / scale),
          Math.max(l[2], (r.right - frame.left - x) / scale), Math.max(l[3], (r.bottom - frame.top - y) / scale)];
      });
      var m = 4;
      var inside = x + scale * l[0] >= 0 && x + scale * l[2] <= w && y + scale * l[1] >= 0 && y + scale * l[3] <= shownH;
      if (inside) { onScreen(frame.top + y + scale * l[1], frame.top + y + scale * l[3]); return; }
      var next = Math.max(1, Math.min(scale, (w - 2 * m) / (l[2] - l[0]), (shownH - 2 * m) / (l[3] - l[1])));
      // Keep the middle of what is shown where it can; then move just enough.
      var nx = w / 2 - next * (w / 2 - x) / scale, ny = shownH / 2 - next * (shownH / 2 - y) / scale;
      if (nx + next * l[0] < m) { nx = m - next * l[0]; }
      if (nx + next * l[2] > w - m) { nx = w - m - next * l[2]; }
      if (ny + next * l[1] < m) { ny = m - next * l[1]; }
      if (ny + next * l[3] > shownH - m) { ny = shownH - m - next * l[3]; }
      scale = next; x = nx; y = ny;
      apply();
      onScreen(frame.top + y + scale * l[1], frame.top + y + scale * l[3]);
    };
    // The page scrolled (a phone): the lit places' rows brought on screen, above a fixed bar.
    function onScreen(top, bottom) {
      var foot = window.innerHeight;
      if (bar && !bar.hidden && window.getComputedStyle(bar).position === "fixed") { foot = bar.getBoundingClientRect().top; }
      if (top < 0) { window.scrollBy(0, top - 8); } else if (bottom > foot) { window.scrollBy(0, Math.min(top - 8, bottom - foot + 8)); }
    }
    box.querySelector(".zoom-in").addEventListener("click", function () { zoomAt(1.5, box.clientWidth / 2, box.clientHeight / 2); });
    box.querySelector(".zoom-out").addEventListener("click", function () { zoomAt(1 / 1.5, box.clientWidth / 2, box.clientHeight / 2); });
    box.addEventListener("pointerdown", function (e) {
      pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      var ids = Object.keys(pointers);
      if (ids.length === 2) {
        var a = pointers[ids[0]], b = pointers[ids[1]];
        start = { d: Math.hypot(a.x - b.x, a.y - b.y), scale: scale };
      }
      if (e.pointerType === "touch" && ids.length === 1) {
        var now = Date.now();
        if (now - lastTap < 300) {
          var r = box.getBoundingClientRect();
          zoomAt(scale > 1.5 ? 1 / scale : 2, e.clientX - r.left, e.clientY - r.top);
        }
        lastTap = now;
      }
    });
    box.addEventListener("pointermove", function (e) {
      var p = pointers[e.pointerId];
      if (!p) { return; }
      var ids = Object.keys(pointers);
      if (ids.length === 2 && start) {
        pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
        var a = pointers[ids[0]], b = pointers[ids[1]];
        var r = box.getBoundingClientRect();
        zoomAt(start.scale * Math.hypot(a.x - b.x, a.y - b.y) / start.d / scale,
          (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
      } else if (scale > 1) {
        x += e.clientX - p.x;
        y += e.clientY - p.y;
        pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
        apply();
      }
    });
    function up(e) { delete pointers[e.pointerId]; if (Object.keys(pointers).length < 2) { start = null; } }
    box.addEventListener("pointerup", up);
    box.addEventListener("pointercancel", up);
  })();
  render();
  // What the page holds, read by the browser tests: the staged parts, and the legal actions
  // now with their picks and places (what lights up when a piece is picked).
  window.kurierTable = {
    staged: function () { return staged.slice(); },
    actions: function () { return current.actions.map(function (a) { return [a.pick, a.target || null]; }); }
  };
};
document.addEventListener("DOMContentLoaded", window.kurierTableInit);
