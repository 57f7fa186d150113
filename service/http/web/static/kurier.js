// Live game pages without a reload button. The page follows its game's event stream (Server-
// Sent Events from the stream server, as a spectator: it only needs to know that something
// happened) and shows the new state in place when an entry newer than the one shown arrives. Without a stream (no
// EventSource, the stream server unreachable) it asks the API every few seconds instead
// (If-None-Match with the version shown: 304 while nothing moved). No inline script anywhere:
// the CSP forbids it.
(function () {
  "use strict";
  var page = document.querySelector("[data-game]");
  if (!page) { return; }
  var game = page.getAttribute("data-game");
  var version = page.getAttribute("data-version");
  var seconds = Number(page.getAttribute("data-poll") || "5");
  var stream = page.getAttribute("data-stream");
  if (page.getAttribute("data-my-turn") === "yes") {
    document.title = "\u25CF Your turn \u00B7 " + document.title;
  }
  // A newer version is shown in place at once, except while a move is staged on the table (it
  // waits until Confirm or Undo). Typing used to set a flag that was never cleared, and the
  // poller stopped asking while it was set: one letter typed in the chat (even deleted again)
  // silently ended live updates. Now nothing stops them: the chat box is kept as it is.
  var waiting = false;
  var online = true;  // whether the last answer or stream came through (connection below)
  // The newest version a stream entry named while an update was under way. A player's own
  // move is shown twice otherwise: once from its answer (kurier:played), then again when the
  // stream's entry for it arrives mid-update, a second redraw of the same version that threw
  // away whatever the player had picked in between.
  var named = 0;
  function moved(next) {
    if (next) { named = Math.max(named, Number(next)); }
    prefetch(next);
    if (staging()) { waiting = true; return; }
    update();
  }
  // The stream names the new version: its board is asked for at once, beside the page (its
  // URL differs from the one shown by the version only), so an update waits for one answer.
  var boards = {};
  function prefetch(next) {
    var shown = document.querySelector(".zoom[data-board]");
    var url = next && shown && shown.getAttribute("data-board");
    if (!url || !/[?&]v=\d+/.test(url)) { return; }
    url = thin(url.replace(/([?&]v=)\d+/, "$1" + next));
    if (!boards[url]) { boards[url] = fetchBoard(url); boards[url].catch(function () { delete boards[url]; }); }
  }
  // A board's unchanging parts (the wargame's map: <g data-keep="KEY">, service/pictures/
  // keep.py) are sent once. The next version is asked for without those the page shows
  // (have=KEY,…), and they stay in the page where they are (morph, below).
  function keys(svg) {
    return svg ? Array.prototype.map.call(svg.querySelectorAll("[data-keep]"), function (g) {
      return g.getAttribute("data-keep");
    }) : [];
  }
  function thin(url) {
    var have = keys(document.querySelector(".zoom[data-board] svg"));
    return have.length ? url + "&have=" + encodeURIComponent(have.join(",")) : url;
  }
  function keptPart(within, slot) {
    var key = slot.getAttribute("data-keep").replace(/[^\w-]/g, "");
    var whole = within && within.querySelector("[data-keep='" + key + "']");
    return whole && whole !== slot && whole.firstChild ? whole : null;
  }
  // Whether the board shown has every part the new one left empty.
  function hasKept(picture, shown) {
    return Array.prototype.every.call(picture.querySelectorAll("[data-keep]:empty"), function (slot) {
      return keptPart(shown, slot) !== null;
    });
  }
  // The new <main> made the page's own in place, keeping the elements that hold the board's
  // kept parts (and the parts): the map's thousands of elements stay in the page, so they are
  // not styled and laid out again (most of an update's time when the whole <main> was
  // swapped). Everything else is the new version's: attributes, other children.
  function morph(live, fresh) {
    Array.prototype.slice.call(live.attributes).forEach(function (a) {
      if (!fresh.hasAttribute(a.name)) { live.removeAttribute(a.name); }
    });
    Array.prototype.forEach.call(fresh.attributes, function (a) {
      if (live.getAttribute(a.name) !== a.value) { live.setAttribute(a.name, a.value); }
    });
    var kids = Array.prototype.slice.call(fresh.childNodes), carried = [];
    kids.forEach(function (kid) {
      var old = carrier(live, kid);
      carried.push(old && carried.indexOf(old) < 0 ? old : null);
    });
    Array.prototype.slice.call(live.childNodes).forEach(function (n) {
      if (carried.indexOf(n) < 0) { live.removeChild(n); }
    });
    var next = live.firstChild;
    kids.forEach(function (kid, i) {
      var old = carried[i];
      if (!old) { live.insertBefore(kid, next); return; }
      if (old === next) { next = next.nextSibling; } else { live.insertBefore(old, next); }
      if (!kid.hasAttribute("data-keep")) { morph(old, kid); }
    });
  }
  // The child of ``live`` holding the kept part that ``kid`` (a new child) leaves empty.
  function carrier(live, kid) {
    if (kid.nodeType !== 1) { return null; }
    var slot = kid.matches("[data-keep]:empty") ? kid : kid.querySelector("[data-keep]:empty");
    var old = slot && keptPart(live, slot);
    while (old && old.parentNode !== live) { old = old.parentNode; }
    return old && old.tagName === kid.tagName ? old : null;
  }
  function fetchBoard(url) {
    return fetch(url, { credentials: "same-origin" }).then(function (response) {
      // 404: that version is no longer the newest (another move came): ask again at once.
      if (response.status === 404) { throw "stale"; }
      if (!response.ok) { throw new Error("board " + response.status); }
      return response.text();
    });
  }
  // The board (window.kurier.board, static/board/): what it has staged, and each update.
  function board() { return window.kurier && window.kurier.board; }
  function staging() { return !!board() && board().staged().length > 0; }
  function retry() { if (waiting && !staging()) { waiting = false; update(); } }
  document.addEventListener("kurier:idle", retry);
  document.addEventListener("kurier:played", function () { update(); });
  // The new state in place: the page is fetched again without its board (?live=1) and its
  // <main> swapped in, keeping the scroll position and the chat box as it is (with its words
  // and focus). The board comes from its own URL per version (data-board), which the browser
  // keeps: fetched only when it changed. No reload.
  var updating = false;
  function withBoard(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main");
    var slot = fresh && fresh.querySelector(".zoom[data-board]");
    var shown = document.querySelector(".zoom[data-board]");
    var url = slot && slot.getAttribute("data-board");
    if (!url || (shown && shown.getAttribute("data-board") === url && shown.querySelector("svg"))) {
      return Promise.resolve([fresh, shown && shown.querySelector("svg")]);
    }
    url = thin(url);
    var asked = boards[url] || fetchBoard(url);
    boards = {};
    return asked.then(function (svg) {
      var picture = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
      return [fresh, picture];
    });
  }
  function update() {
    if (updating) { waiting = true; return; }
    updating = true;
    var path = window.location.pathname;
    fetch(path + "?live=1", { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.text(); })
      .then(withBoard)
      .then(function (got) {
        var fresh = got[0], picture = got[1];
        var main = document.querySelector("main");
        if (!fresh || !main) { window.location.reload(); return; }
        var same = fresh.querySelector("[data-game]");
        if (same && same.getAttribute("data-version") === String(version)) {
          // The version shown already (asked for twice: a move's answer and the stream's
          // entries for it, or two streams): nothing changed, and a swap would re-draw the
          // table, dropping what the player picked or staged since.
          updating = false;
          waiting = false;
          named = 0;
          start();
          return;
        }
        var slot = fresh.querySelector(".zoom[data-board]");
        if (slot && picture) { slot.textContent = ""; slot.appendChild(picture); }
        var talk = main.querySelector("form[action$='/say']");
        var field = talk && talk.querySelector("textarea");
        var typing = field && (field.value !== "" || document.activeElement === field);
        var at = typing ? [field.selectionStart, field.selectionEnd] : null;
        var scroll = window.scrollY;
        var adopted = document.importNode(fresh, true);
        var drawn = adopted.querySelector(".zoom[data-board] svg");
        var keeps = drawn !== null && drawn.querySelector("[data-keep]:empty") !== null;
        if (keeps && !hasKept(drawn, document.querySelector(".zoom[data-board] svg"))) {
          window.location.reload();
          return;
        }
        if (typing) {
          var talkSlot = adopted.querySelector("form[action$='/say']");
          if (talkSlot) { talkSlot.replaceWith(talk); }
        }
        if (keeps) { morph(main, adopted); } else { main.replaceWith(adopted); }
        if (document.querySelector("main [data-keep]:empty")) { window.location.reload(); return; }
        if (typing) { field.focus(); field.setSelectionRange(at[0], at[1]); }
        window.scrollTo(0, scroll);
        var shown = document.querySelector("[data-game]");
        version = shown.getAttribute("data-version");
        var mine = shown.getAttribute("data-my-turn") === "yes";
        document.title = document.title.replace(/^\u25CF [^\u00B7]*\u00B7 /, "");
        if (mine) { document.title = "\u25CF Your turn \u00B7 " + document.title; }
        if (board()) { board().set(); }  // the new version's legal actions, read from the page
        window.kurierVerify();
        document.dispatchEvent(new CustomEvent("kurier:updated"));  // notify.js
        connection(online);
        updating = false;
        var newer = !named || named > Number(version);  // a poll names none: ask again
        named = 0;
        if (waiting) {
          waiting = false;
          if (newer) { update(); return; }
        }
        start();
      }).catch(function (why) {
        updating = false;
        if (why === "stale") { update(); return; }
        connection(false);
        window.setTimeout(update, seconds * 1000);
      });
  }
  function connection(ok) {
    online = ok;
    var lost = document.querySelector(".connection");  // a fresh one after each update
    if (lost) { lost.hidden = ok; }
  }
  function ask() {
    fetch("/v1/games/" + encodeURIComponent(game), {
      headers: { "If-None-Match": '"' + version + '"' },
      credentials: "same-origin",
      cache: "no-store"
    }).then(function (response) {
      connection(response.status === 200 || response.status === 304);
      if (response.status === 200) { moved(); }
      window.setTimeout(ask, seconds * 1000);  // asks with the version then shown
    }).catch(function () { connection(false); window.setTimeout(ask, seconds * 1000); });
  }
  // One stream at a time. An update that did not come from the stream (the player's own move,
  // a version asked for twice) starts following again from the version now shown: the stream
  // opened before is closed first, or each such update left one more open (a browser allows
  // six connections to a server: enough open streams and the page's own fetches wait).
  var following = null;
  var ended = false;  // the stream said the game is over: nothing to follow
  function follow() {
    if (following) { following.close(); }
    var source = following = new EventSource(stream + "?after=" + encodeURIComponent(version));
    source.addEventListener("entry", function (event) {
      if (Number(event.lastEventId) > Number(version)) { source.close(); moved(event.lastEventId); }
    });
    // A finished (or archived) game's stream ends with "end": nothing more will come, so the
    // page stops following, says nothing of a lost connection and never asks again.
    source.addEventListener("end", function (event) {
      source.close();
      ended = true;
      var why = JSON.parse(event.data || "{}").status || "finished";
      document.body.setAttribute("data-stream-ended", why);
      connection(true);
    });
    source.addEventListener("error", function () {
      // EventSource retries by itself: say so while it does. A stream that never opened (no
      // stream server) is no lost connection: the page asks the API instead.
      if (source.opened) { connection(false); }
      if (source.readyState === EventSource.CLOSED || !source.opened) {
        source.close();
        window.setTimeout(ask, seconds * 1000);
      }
    });
    // A message the player may see (the stream is theirs: its URL, the page's own, adds a
    // ticket for the session): the talk below shows it.
    source.addEventListener("message", function () {
      document.dispatchEvent(new CustomEvent("kurier:talk"));
    });
    source.addEventListener("open", function () { source.opened = true; connection(true); });
  }
  var polling = false;
  function start() {
    if (ended) { return; }
    if (stream && window.EventSource) { follow(); } else if (!polling) {
      polling = true;
      window.setTimeout(ask, seconds * 1000);
    }
  }
  start();
})();

// At the table. A seated player's page of a game in play (data-presence) says it is there
// once a beat while it is visible and still following its game, and says "hidden" the moment
// it is hidden, closed or left (a beacon, which outlives the page). While there, the player
// gets no mail of this game; after leaving, what still asks them to act is mailed once the
// grace period has passed (service/domain/presence.py, docs/email.md "At the table").
(function () {
  "use strict";
  var page = document.querySelector("[data-presence]");
  if (!page || !window.fetch || !window.FormData) { return; }
  var url = page.getAttribute("data-presence");
  var beat = Number(page.getAttribute("data-beat") || "20") * 1000;
  var timer = null;
  function body(state) {
    var csrf = document.querySelector("input[name=csrf]");
    var form = new FormData();
    form.append("csrf", csrf ? csrf.value : "");
    form.append("state", state);
    return form;
  }
  function say(state) {
    fetch(url, { method: "POST", body: body(state), credentials: "same-origin", keepalive: true })
      .catch(function () { /* the next beat says it again; a lost one expires by itself */ });
  }
  function here() {
    // A finished game's stream ended (kurier.js above): nothing more to be at.
    return document.visibilityState === "visible" && !document.body.hasAttribute("data-stream-ended");
  }
  function tick() {
    window.clearTimeout(timer);
    if (here()) { say("visible"); timer = window.setTimeout(tick, beat); }
  }
  function leave() { window.clearTimeout(timer); say("hidden"); }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { tick(); } else { leave(); }
  });
  window.addEventListener("pagehide", function () {
    window.clearTimeout(timer);
    if (navigator.sendBeacon && navigator.sendBeacon(url, body("hidden"))) { return; }
    say("hidden");
  });
  window.addEventListener("pageshow", function (event) { if (event.persisted) { tick(); } });
  tick();
})();

// Table talk in place. A message from the stream (kurier:talk) has the talk's list fetched
// again (the page without its board, rendered by the server for this player) and put in place;
// the form is sent without leaving the page (the words stay until the server took them; a
// refusal posts the form itself, which shows why and keeps the words). Folded away, the talk
// counts what came meanwhile; the fold and the count stay through the page's updates in place.
(function () {
  "use strict";
  var folded = false;
  var unread = 0;
  function box() { return document.querySelector("main details.talk-box"); }
  function show() {
    var details = box();
    if (!details) { return; }
    if (details.open === folded) { details.open = !folded; }
    var mark = details.querySelector(".unread");
    mark.hidden = unread === 0;
    mark.textContent = (mark.getAttribute("data-new") || "%s new").replace("%s", String(unread));
  }
  function refresh() {
    fetch(window.location.pathname + "?live=1", { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main ul.talk");
        var list = document.querySelector("main ul.talk");
        if (fresh && list) { list.replaceWith(document.importNode(fresh, true)); }
      })
      .catch(function () { /* the next message or update brings it */ });
  }
  document.addEventListener("kurier:talk", function () {
    if (folded) { unread += 1; show(); }
    refresh();
  });
  document.addEventListener("kurier:updated", show);
  document.addEventListener("toggle", function (event) {
    if (event.target !== box()) { return; }
    folded = !event.target.open;
    if (!folded) { unread = 0; }
    show();
  }, true);
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form[action$='/say']") || !window.fetch) { return; }
    // Sent in place on the game's page only; elsewhere (a refusal's page keeping the words)
    // the form posts and the answer leads back to the game.
    if (new URL(form.action.replace(/\/say$/, "")).pathname !== window.location.pathname) { return; }
    event.preventDefault();
    var button = form.querySelector("button");
    button.disabled = true;
    fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      credentials: "same-origin",
      headers: { Accept: "application/json" }
    }).then(function (response) {
      button.disabled = false;
      if (response.status !== 201) { form.submit(); return; }
      form.querySelector("textarea").value = "";
      refresh();
    }).catch(function () { button.disabled = false; });  // kept as typed: send again
  });
})();

// Every revealed sealed choice is checked here, in the browser, against the commitment that was
// published before the reveal: SHA-256 of "kurier-commit-v1|game|ref|seat|choice|salt"
// (docs/api.md, "Verifying commitments"). The server's word is not taken for it.
// The page's words in its language: base.html puts them on <body> as data-w-* attributes
// (service/http/web, docs/i18n.md); English when a page has none.
window.kurierWord = function (name, english) {
  "use strict";
  var value = document.body && document.body.dataset["w" + name];
  return value || english;
};

window.kurierVerify = function () {
  "use strict";
  var word = window.kurierWord;
  var items = document.querySelectorAll(".reveal");
  if (!items.length) { return Promise.resolve(0); }
  if (!(window.crypto && window.crypto.subtle)) {
    items.forEach(function (item) {
      item.querySelector(".check").textContent =
        word("Nohttps", "cannot be checked here (needs https)");
    });
    return Promise.resolve(0);
  }
  var checks = Array.prototype.map.call(items, function (item) {
    var d = item.dataset;
    var text = ["kurier-commit-v1", d.game, d.ref, d.seat, d.choice, d.salt].join("|");
    return window.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(function (hash) {
      var hex = Array.prototype.map.call(new Uint8Array(hash), function (b) {
        return ("0" + b.toString(16)).slice(-2);
      }).join("");
      var ok = d.commitment !== "" && hex === d.commitment;
      var mark = item.querySelector(".check");
      mark.textContent = ok ? "\u2713 " + word("Verified", "commitment verified in your browser")
                            : "\u2717 " + word("Mismatch", "does not match the commitment published before");
      mark.className = "check " + (ok ? "verified" : "mismatch");
      return ok;
    });
  });
  return Promise.all(checks);
};
document.addEventListener("DOMContentLoaded", function () { window.kurierVerify(); });

// Deadlines as a countdown ("2 d 4 h left"), refreshed every 30 s.
(function () {
  "use strict";
  function show() {
    var word = window.kurierWord;
    document.querySelectorAll("time.countdown").forEach(function (node) {
      var left = Number(node.dataset.deadline) * 1000 - Date.now();
      if (left <= 0) { node.textContent = word("Passed", "passed"); return; }
      var minutes = Math.floor(left / 60000);
      var d = Math.floor(minutes / 1440), h = Math.floor((minutes % 1440) / 60), m = minutes % 60;
      var span = (d ? d + " " + word("D", "d") + " " : "") + (d || h ? h + " " + word("H", "h") + " " : "") +
        (d ? "" : m + " " + word("Min", "min") + " ");
      node.textContent = word("Left", "%s left").replace("%s", span.trim());
      node.setAttribute("datetime", new Date(Number(node.dataset.deadline) * 1000).toISOString());
    });
  }
  document.addEventListener("DOMContentLoaded", show);
  window.setInterval(show, 30000);
})();

// The create form: only the chosen game's rule options (without script all are shown, and
// the server reads only the chosen type's fields).
(function () {
  function only() {
    var select = document.querySelector("form.create select[name=type]");
    if (!select) { return; }
    document.querySelectorAll("form.create details.options").forEach(function (node) {
      node.hidden = node.getAttribute("data-type") !== select.value;
    });
  }
  document.addEventListener("DOMContentLoaded", only);
  document.addEventListener("change", function (event) {
    if (event.target.matches("form.create select[name=type]")) { only(); }
  });
})();
