// Live game pages without a reload button. The page follows its game's event stream (Server-
// Sent Events from the stream server, as a spectator: it only needs to know that something
// happened) and reloads when an entry newer than the one shown arrives. Without a stream (no
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
  // Someone typing keeps the page: no reload under their fingers.
  var typing = false;
  document.addEventListener("input", function () { typing = true; });
  function moved() {
    if (!typing) { window.location.reload(); }
  }
  function ask() {
    if (typing) { return; }
    fetch("/v1/games/" + encodeURIComponent(game), {
      headers: { "If-None-Match": '"' + version + '"' },
      credentials: "same-origin",
      cache: "no-store"
    }).then(function (response) {
      if (response.status === 200) { moved(); return; }
      window.setTimeout(ask, seconds * 1000);
    }).catch(function () { window.setTimeout(ask, seconds * 4000); });
  }
  function follow() {
    var source = new EventSource(stream + "?after=" + encodeURIComponent(version));
    source.addEventListener("entry", function (event) {
      if (Number(event.lastEventId) > Number(version)) { source.close(); moved(); }
    });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED || !source.opened) {
        source.close();
        window.setTimeout(ask, seconds * 1000);
      }
    });
    source.addEventListener("open", function () { source.opened = true; });
  }
  if (stream && window.EventSource) { follow(); } else { window.setTimeout(ask, seconds * 1000); }
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
