// Stepping through a game's versions (templates/replay.html): the page is links that work
// without script; this adds the keys. ← and → go to the previous and next version, Home and
// End to the first and last, except while typing in a field (the "go to" box). A game in play
// is followed on its stream: a viewer at the newest version is taken to each new one as it is
// made; one further back keeps their place, and "Last" (and the box's range) move on.
(function () {
  "use strict";
  var keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    var rel = keys[event.key];
    if (!rel || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    if (event.target.closest && event.target.closest("input, textarea, select")) { return; }
    var link = document.querySelector(".replay-nav a[rel=" + rel + "]");
    if (!link) { return; }
    event.preventDefault();
    window.location.assign(link.href);
  });
})();

(function () {
  "use strict";
  var nav = document.querySelector(".replay-nav[data-stream]");
  if (!nav || !window.EventSource) { return; }
  var last = Number(nav.getAttribute("data-last"));
  var atLast = Number(nav.getAttribute("data-version")) === last;
  function versionUrl(version) {
    return window.location.pathname.replace(/\/\d+$/, "/" + version);
  }
  var source = new EventSource(nav.getAttribute("data-stream") + "?after=" + last);
  source.addEventListener("entry", function (event) {
    var version = Number(event.lastEventId);
    if (!(version > last)) { return; }
    last = version;
    if (atLast) { source.close(); window.location.assign(versionUrl(version)); return; }
    var link = nav.querySelector("a[rel=last]");
    if (link) { link.href = versionUrl(version); }
    var box = nav.querySelector("input[name=v]");
    if (box) { box.max = String(version); }
  });
})();
