// Stepping through a game's versions (templates/replay.html): the page is links that work
// without script; this adds the keys. ← and → go to the previous and next version, Home and
// End to the first and last, except while typing in a field (the "go to" box).
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
