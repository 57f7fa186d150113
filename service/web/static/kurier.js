// Live game pages without a reload button: ask the API every few seconds whether the game moved
// (If-None-Match with the version shown: 304 while nothing did), and reload when it has.
// Until the push channel (issue 14) exists, this is conditional polling; it costs the server a
// record read per tab and interval. No inline script anywhere: the CSP forbids it.
(function () {
  "use strict";
  var page = document.querySelector("[data-game]");
  if (!page) { return; }
  var game = page.getAttribute("data-game");
  var version = page.getAttribute("data-version");
  var seconds = Number(page.getAttribute("data-poll") || "5");
  if (page.getAttribute("data-my-turn") === "yes") {
    document.title = "\u25CF Your turn \u00B7 " + document.title;
  }
  function ask() {
    fetch("/v1/games/" + encodeURIComponent(game), {
      headers: { "If-None-Match": '"' + version + '"' },
      credentials: "same-origin",
      cache: "no-store"
    }).then(function (response) {
      if (response.status === 200) { window.location.reload(); return; }
      window.setTimeout(ask, seconds * 1000);
    }).catch(function () { window.setTimeout(ask, seconds * 4000); });
  }
  // Someone typing keeps the page: no reload under their fingers.
  var typing = false;
  document.addEventListener("input", function () { typing = true; });
  window.setTimeout(function wait() {
    if (typing) { return; }
    ask();
  }, seconds * 1000);
})();
