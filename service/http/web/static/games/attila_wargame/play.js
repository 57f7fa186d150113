// The wargame's play on the board. The server hands the page the legal actions with their
// counters and hexes (engine/attila_wargame/targets.py) and, for a counter picked up, its
// march: each hex it can still reach with the path, the cost and why the move ends there, and
// the neighbouring hexes it may not enter with the engine's reason. The page lights them up,
// draws the path, and stages the chosen parts on the board (the steps of a march, an attack
// with its attackers, a card, a note). No rule is decided here.
import { button, byId as find, svgElement as el } from "../../board/dom.js";
import { byPick } from "../../board/legal.js";
import { points } from "./minimap.js";

/** The play's controller parts (attach, render, reset, undo, keydown, staged); ``say`` reads the words. */
export function wargamePlay(words) {
  const say = (key, values) => words.say(key, values);
  // What the player has in hand: a counter picked up and its march, a battle's target and its
  // attackers, the hexes to raze; ``route`` is the last staged march, open to waypoints and to
  // its command units (below).
  const st = { picked: null, march: null, target: null, attackers: [], razing: [], route: null };
  let board = null, svg = null, under = null, overlay = null, info = null, carryBox = null;
  let choices = null, orders = null, pieces = null, bar = null;

  const current = () => board.table();
  const places = () => board.places();
  function kind(a) { return a.n.split(" ")[0]; }
  function byId(id) { return find(svg, id); }
  function hexShape(label) { const g = byId("hex-" + label); return g && g.querySelector("polygon"); }
  function centreOf(label) {
    const shape = hexShape(label);
    if (!shape) { return null; }
    const pts = points(shape);
    return pts.reduce((s, p) => [s[0] + p[0] / pts.length, s[1] + p[1] / pts.length], [0, 0]);
  }
  function unitOf(pick) { return pick && pick.indexOf("unit:") === 0 ? pick.slice(5) : null; }
  function stage(moves, label, walked) { board.stage({ moves, label, path: walked }); }
  function drop(keepRazing) {
    st.picked = null; st.march = null; st.target = null; st.attackers = [];
    if (!keepRazing) { st.razing = []; }
  }

  // A hex lit on the overlay (clickable), with its cost or why it is closed.
  function litHex(label, cls, title, text) {
    const shape = hexShape(label);
    if (!shape) { return null; }
    const g = el("g", { "class": cls, "data-hex": label });
    g.appendChild(el("polygon", { points: shape.getAttribute("points") }));
    const t = el("title");
    t.textContent = title;
    g.appendChild(t);
    // Its mark, not its colour alone: the march's cost there, or a ring (a place to tap).
    const c = centreOf(label), mark = el("text", { x: c[0], y: c[1] + 5, "text-anchor": "middle", "font-size": 14 });
    mark.textContent = text || "\u25ce";
    g.appendChild(mark);
    if (cls.indexOf("wg-lit") >= 0) {
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", title);
    }
    under.appendChild(g);
    return g;
  }
  function ring(unit, cls) {
    const g = byId("unit-" + unit);
    if (!g) { return; }
    const b = g.getBBox();
    overlay.appendChild(el("rect", { "class": cls, x: b.x - 3, y: b.y - 3, width: b.width + 6, height: b.height + 6, rx: 4 }));
    g.classList.add("wg-pickable");
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");  // named by its <title>: what it is, where, its factors
  }
  function path(labels, cls) {
    const pts = labels.map(centreOf).filter(Boolean).map((p) => p.join(","));
    if (pts.length > 1) { overlay.appendChild(el("polyline", { "class": cls, points: pts.join(" ") })); }
  }

  function render() {
    overlay.textContent = "";
    under.textContent = "";
    svg.querySelectorAll(".wg-pickable").forEach((g) => {
      g.classList.remove("wg-pickable");
      g.removeAttribute("tabindex");
      g.removeAttribute("role");
    });
    if (choices) { choices.textContent = ""; }
    if (orders) { orders.textContent = ""; }
    board.staging.parts().forEach((g) => { if (g.path) { path(g.path, "wg-path wg-staged"); } });
    const step = current().decision && current().decision.step;
    const picks = byPick(current().actions);
    // Counters to pick up (a march, a retreat, an advance).
    Object.keys(picks).forEach((p) => {
      const unit = unitOf(p);
      if (unit) { ring(unit, unit === st.picked ? "wg-ring wg-picked" : "wg-ring"); }
    });
    under.removeAttribute("data-march");
    const march = st.march;
    if (st.picked && march && march.unit === st.picked) {
      under.setAttribute("data-march", st.picked);
      if (march.from) { path([march.from], "wg-path"); }
      Object.keys(march.closed || {}).forEach((h) => { litHex(h, "wg-closed", h + ": " + march.closed[h], "\u2715"); });
      Object.keys(march.reach || {}).forEach((h) => {
        const r = march.reach[h];
        litHex(h, "wg-lit", h + ": " + r.cost + (r.stop ? " \u2014 " + r.stop : ""), String(r.cost));
      });
      markCarried(march);
      if (march.stuck) { info.textContent = st.picked + ": " + march.stuck; }
    } else if (st.picked && !(picks["unit:" + st.picked] || []).some((a) => kind(a) === "move")) {
      (picks["unit:" + st.picked] || []).forEach((a) => { if (a.target) { litHex(a.target.slice(4), "wg-lit", a.n); } });
    }
    renderRoute();
    renderAttack(picks);
    renderButtons(picks, step);
  }

  // Combat: the targets lit; a target chosen, its possible attackers ringed, tapped in or out.
  function renderAttack(picks) {
    const attacks = picks.attack || [];
    if (!attacks.length) { return; }
    const targets = {};
    attacks.forEach((a) => { targets[a.target] = true; });
    Object.keys(targets).forEach((t) => {
      litHex(t.slice(4), t === st.target ? "wg-lit wg-target" : "wg-lit", say("attack_here", { place: places()[t] || t }));
    });
    if (!st.target) { return; }
    const here = attacks.filter((a) => a.target === st.target);
    const can = {};
    let must = null;
    here.forEach((a) => {
      a.attackers.forEach((u) => { can[u] = true; });
      must = must === null ? a.attackers.slice() : must.filter((u) => a.attackers.indexOf(u) >= 0);
    });
    Object.keys(can).forEach((u) => {
      ring(u, st.attackers.indexOf(u) >= 0 ? "wg-ring wg-attacker" : "wg-ring");
    });
    const match = here.find((a) => a.attackers.length === st.attackers.length && a.attackers.every((u) => st.attackers.indexOf(u) >= 0));
    const odds = match ? " " + match.attack + " : " + match.defence + (match.column ? " \u2192 " + match.column : "") : "";
    info.textContent = match ? match.n + " \u2014" + odds : (must && must.length ? say("must_attack", { units: must.join(", ") }) : say("tap_attackers"));
    const go = button((current().labels.attack || "") + odds, () => { if (match) { stage([match.n], match.n, null); } }, "option wg-attack");
    go.disabled = !match || board.busy;
    choices.appendChild(go);
  }

  function renderButtons(picks) {
    if (!choices) { return; }
    Object.keys(picks).forEach((p) => {
      if (unitOf(p) || p === "attack" || p === "note" || p === "raze") { return; }
      const cls = p.indexOf("card:") === 0 ? "piece card-piece wg-card" : "piece gen";
      const label = current().labels[p] || picks[p][0].n;
      const b = button(label, () => stage([picks[p][0].n], picks[p][0].n, null), cls);
      b.disabled = board.busy;
      choices.appendChild(b);
    });
    if (picks.raze) {
      const all = {};
      picks.raze.forEach((a) => { a.hexes.forEach((h) => { all[h] = true; }); });
      Object.keys(all).forEach((h) => { litHex(h.slice(4), st.razing.indexOf(h) >= 0 ? "wg-lit wg-target" : "wg-lit", h); });
      const match = picks.raze.find((a) => a.hexes.length === st.razing.length && a.hexes.every((h) => st.razing.indexOf(h) >= 0));
      const raze = button(match ? match.n : "\u2026", () => { if (match) { stage([match.n], match.n, null); } }, "option");
      raze.disabled = !match || board.busy;
      choices.appendChild(raze);
    }
    if (picks.note) { renderNotes(picks.note); }
  }

  // The secret orders: a counter tapped on the map, then (the Barbarian) Aetius's round.
  function renderNotes(notes) {
    const units = {};
    notes.forEach((a) => { units[a.unit] = true; });
    Object.keys(units).forEach((u) => { ring(u, u === st.picked ? "wg-ring wg-picked" : "wg-ring"); });
    const place = orders || choices;
    const mine = notes.filter((a) => a.unit === st.picked);
    info.textContent = st.picked ? st.picked : say("orders_tap", { orders: current().labels.note || "" });
    mine.forEach((a) => {
      const label = a.aetius ? say("aetius_round", { round: a.aetius }) : a.n;
      place.appendChild(button(label, () => stage([a.n], a.n, null), "option wg-round"));
    });
  }

  // A counter picked up: the server's march for it (its answer is no new table).
  function askMarch(extra) {
    return board.ask(extra, (body) => {
      if (!body.march) { return false; }
      st.march = body.march;
      return true;
    });
  }

  function tapUnit(unit) {
    const picks = byPick(current().actions);
    if (st.target && (picks.attack || []).some((a) => a.target === st.target && a.attackers.indexOf(unit) >= 0)) {
      const i = st.attackers.indexOf(unit);
      if (i >= 0) { st.attackers.splice(i, 1); } else { st.attackers.push(unit); }
      board.render();
      return;
    }
    if ((picks.note || []).some((a) => a.unit === unit)) {
      st.picked = st.picked === unit ? null : unit;
      const only = (picks.note || []).filter((a) => a.unit === unit);
      if (st.picked && only.length === 1 && !only[0].aetius) { stage([only[0].n], only[0].n, null); return; }
      board.render();
      return;
    }
    if (!picks["unit:" + unit]) { info.textContent = places()["unit-" + unit] || unit; return; }
    if (st.picked === unit) { st.picked = null; st.march = null; board.render(); return; }
    st.picked = unit;
    st.march = null;
    info.textContent = places()["unit-" + unit] || unit;
    const moving = picks["unit:" + unit].some((a) => kind(a) === "move");
    if (moving) { askMarch("&unit=" + encodeURIComponent(unit)); } else { board.render(); }
  }
  function tapHex(label) {
    const picks = byPick(current().actions);
    const id = "hex-" + label;
    if (throughHex(label)) { return; }
    if (st.picked && st.march && st.march.unit === st.picked && st.march.reach[label]) {
      stageMarch(label);
      return;
    }
    if (st.picked) {
      const one = (picks["unit:" + st.picked] || []).find((a) => a.target === id);
      if (one) { stage([one.n], one.n, null); return; }
    }
    if ((picks.attack || []).some((a) => a.target === id)) {
      st.target = st.target === id ? null : id;
      st.attackers = [];
      if (st.target) {  // the units bound to this battle (4.1) are in every grouping: start with them
        const here = picks.attack.filter((a) => a.target === id);
        st.attackers = here[0].attackers.filter((u) => here.every((a) => a.attackers.indexOf(u) >= 0));
      }
      board.render();
      return;
    }
    if (picks.raze && picks.raze.some((a) => a.hexes.indexOf(id) >= 0)) {
      const i = st.razing.indexOf(id);
      if (i >= 0) { st.razing.splice(i, 1); } else { st.razing.push(id); }
      board.render();
    }
  }

  // -- A march's route: waypoints and the command units going along ------------------------
  // The counter's march is staged as soon as its hex is tapped, and stays open: a lit hex
  // tapped then is a waypoint (the march goes start → waypoints → the hex, each leg the
  // server's, /staged?unit=…&via=…, from the state the leg before left), Undo takes back
  // the last waypoint; the command units stacked with the counter are toggles (on as the
  // server offers them, /staged?…&carry=…), their steps staged with the counter's. The
  // server decides every leg and step; the page shows and stages.
  function enc(text) { return encodeURIComponent(text); }
  function carriedOn(m) { return (m.carry || []).filter((c) => c.on).map((c) => c.unit); }
  function marchLabel(unit, m, dest) {
    const r = m.reach[dest], names = Object.keys(r.carried || {});
    return unit + (names.length ? " + " + names.join(" + ") : "") + " \u2192 " +
      (m.via || []).concat([dest]).join(" \u2192 ") + " (" + r.cost + ")";
  }
  // Where a command unit going along stops short of the counter's hex (its movement used,
  // a river): said on each lit hex, and the hex marked.
  function shortOf(r, dest) {
    return Object.keys(r.carried || {}).filter((u) => r.carried[u] !== dest)
      .map((u) => say("stops_at", { unit: u, hex: r.carried[u] }));
  }
  function markCarried(m) {
    under.querySelectorAll(".wg-lit").forEach((g) => {
      const h = g.getAttribute("data-hex"), r = m.reach[h];
      const short = r ? shortOf(r, h) : [];
      if (!short.length) { return; }
      g.classList.add("wg-partial");
      const t = g.querySelector("title");
      t.textContent += " \u2014 " + short.join(", ");
      g.setAttribute("aria-label", t.textContent);
    });
  }
  function routeOpen() {
    return !!st.route && !st.picked && board.staging.size() > 0 && board.staging.last() === st.route.group;
  }
  function stageMarch(label) {
    const m = st.march, unit = st.picked, r = m.reach[label], n = board.staging.size();
    stage(r.steps, marchLabel(unit, m, label), [m.from].concat(r.path));
    if (board.staging.size() === n) { return; }
    st.route = { unit, dest: label, march: m, via: m.via || [], carry: carriedOn(m),
      group: board.staging.last(), history: [] };
  }
  // The open march asked again through ``via`` with ``carry`` from the state before it; its
  // staged steps replaced when its hex is still reached that way.
  function reroute(via, carry) {
    const open = st.route, g = open.group;
    const moves = board.staging.parts().slice(0, -1).reduce((all, x) => all.concat(x.moves), []);
    const extra = "&unit=" + enc(open.unit) + (via.length ? "&via=" + enc(via.join(",")) : "") + "&carry=" + enc(carry.join(","));
    board.busy = true;
    board.render();
    board.settings.ask(board.settings.game, moves, extra).then((got) => {
      board.busy = false;
      if (!got[0]) { board.error(got[1].detail || got[1].error); board.render(); return; }
      const m = got[1].march, r = m && m.reach[open.dest];
      if (st.route !== open) { board.render(); return; }
      if (!r) {
        board.render();
        info.textContent = say("not_through", { hex: open.dest, via: via[via.length - 1] });
        return;
      }
      open.history.push({ via: open.via, carry: open.carry, march: open.march, moves: g.moves,
        path: g.path, label: g.label, table: current() });
      open.via = via; open.carry = carry; open.march = m;
      g.moves = r.steps; g.path = [m.from].concat(r.path); g.label = marchLabel(open.unit, m, open.dest);
      board.ask("");  // what may follow the march as it now goes
    }).catch(() => { board.busy = false; board.render(); });
  }
  function throughHex(label) {
    if (!routeOpen() || board.busy || label === st.route.dest || !st.route.march.reach[label]) { return false; }
    reroute(st.route.via.concat([label]), st.route.carry);
    return true;
  }
  function unwaypoint() {
    if (!routeOpen() || board.busy || !st.route.history.length) { return false; }
    const h = st.route.history.pop(), g = st.route.group;
    st.route.via = h.via; st.route.carry = h.carry; st.route.march = h.march;
    g.moves = h.moves; g.path = h.path; g.label = h.label;
    board.staging.follow(h.table);
    board.render();
    return true;
  }
  function toggleCarry(m, unit) {
    const on = carriedOn(m), i = on.indexOf(unit);
    if (i >= 0) { on.splice(i, 1); } else { on.push(unit); }
    if (st.picked) {
      askMarch("&unit=" + enc(st.picked) + "&carry=" + enc(on.join(",")));
    } else if (routeOpen()) {
      reroute(st.route.via, on);
    }
  }
  function renderRoute() {
    if (carryBox) { carryBox.textContent = ""; }
    const open = routeOpen();
    if (!open && !st.picked) { st.route = null; }
    const m = st.picked ? (st.march && st.march.unit === st.picked ? st.march : null) : (open ? st.route.march : null);
    if (m && carryBox) {
      (m.carry || []).forEach((c) => {
        const b = button("\u2691 " + c.unit, () => toggleCarry(m, c.unit), "piece gen wg-carry-toggle");
        b.setAttribute("aria-pressed", c.on ? "true" : "false");
        b.title = say(c.on ? "goes_along" : "stays", { unit: c.unit });
        b.disabled = board.busy;
        carryBox.appendChild(b);
      });
      const on = carriedOn(m);
      if (st.picked && on.length) {
        info.textContent = say("with_carried", { unit: places()["unit-" + st.picked] || st.picked, units: on.join(", ") });
      }
    }
    if (!open) { return; }
    const route = st.route;
    route.via.forEach((h) => {
      const c = centreOf(h);
      if (c) { overlay.appendChild(el("circle", { "class": "wg-waypoint", cx: c[0], cy: c[1], r: 10 })); }
    });
    const dest = litHex(route.dest, "wg-dest", route.dest + ": " + route.group.label);
    if (dest) { dest.setAttribute("data-dest", route.unit); }
    Object.keys(route.march.reach).forEach((h) => {
      if (h !== route.dest) { litHex(h, "wg-lit wg-via", say("go_through", { hex: h, cost: route.march.reach[h].cost })); }
    });
    markCarried(route.march);
    const r = route.march.reach[route.dest], short = r ? shortOf(r, route.dest) : [];
    info.textContent = say(route.via.length ? "route_undo" : "route",
      { march: route.group.label + (short.length ? " \u2014 " + short.join(", ") : "") });
  }

  // The lit or closed hex under a tapped counter, if any.
  function hexAt(x, y, cls) {
    return document.elementsFromPoint(x, y).map((n) => n.closest && n.closest(cls)).filter(Boolean)[0] || null;
  }
  function listen() {
    board.on(svg, "click", (e) => {
      const unit = e.target.closest("g[id^='unit-']");
      const lit = e.target.closest(".wg-lit") || (unit && hexAt(e.clientX, e.clientY, ".wg-lit"));
      // A counter picked up goes to a lit hex even where another counter stands on it.
      const other = st.picked && lit && unit && unit.id.slice(5) !== st.picked;
      if (unit && unit.classList.contains("wg-pickable") && !other) { tapUnit(unit.id.slice(5)); return; }
      if (lit) { tapHex(lit.getAttribute("data-hex")); return; }
      const closed = e.target.closest(".wg-closed") || hexAt(e.clientX, e.clientY, ".wg-closed");
      if (closed) { info.textContent = closed.querySelector("title").textContent; return; }
      if (unit) { tapUnit(unit.id.slice(5)); }
    });
    board.on(svg, "keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") { return; }
      const t = e.target;
      if (t.classList && t.classList.contains("wg-lit")) {
        e.preventDefault();
        tapHex(t.getAttribute("data-hex"));
      } else if (t.id && t.id.indexOf("unit-") === 0) {
        e.preventDefault();
        tapUnit(t.id.slice(5));
      }
    });
  }

  return {
    /** Binds the play to the page's elements (again after an update). */
    attach(next) {
      board = next;
      ({ svg, pieces, choices, bar } = board.elements);
      orders = document.querySelector(".secret-orders .orders-choices");
      info = board.info || document.createElement("p");
      if (!svg || !board.playable()) { return; }
      // Lit and closed hexes lie under the counters (a counter stays tappable on a lit hex);
      // the rings and the drawn paths over everything.
      svg.querySelectorAll("#wg-under, #wg-overlay").forEach((g) => g.remove());
      under = el("g", { id: "wg-under" });
      overlay = el("g", { id: "wg-overlay" });
      const firstUnit = svg.querySelector("g[id^='unit-']");
      if (firstUnit) { firstUnit.parentNode.insertBefore(under, firstUnit); } else { svg.appendChild(under); }
      svg.appendChild(overlay);
      carryBox = null;
      if (pieces) { pieces.querySelectorAll(".wg-carry").forEach((b) => b.remove()); }
      if (pieces) {
        carryBox = document.createElement("div");
        carryBox.className = "wg-carry";
        carryBox.setAttribute("role", "group");
        carryBox.setAttribute("aria-label", say("carry_group"));
        pieces.appendChild(carryBox);
      }
      listen();
    },
    render() { if (svg && under) { render(); } },
    reset(why) { drop(why === "undo"); },  // Undo keeps the hexes chosen to raze
    staged() { drop(); },
    undo() { return unwaypoint(); },
    keydown(b, e) {
      if (e.key === "Escape") {
        st.route = null;
        drop();
        board.render();
      }
    },
    get bar() { return bar; },
  };
}
