// Turn notifications (issue 32), opt-in: the page's button asks the browser for permission
// (only on that click), and from then on, when it becomes this player's turn while the page
// is open in the background, a notification says so; a short beep may go with it (drawn with
// WebAudio: no sound file, nothing fetched). Both choices are kept in this browser
// (localStorage). kurier.js tells when the page was updated in place ("kurier:updated").
(function () {
  "use strict";
  var NOTIFY = "kurier.notify", SOUND = "kurier.sound";
  function kept(key) {
    try { return window.localStorage.getItem(key) === "on"; } catch (e) { return false; }
  }
  function keep(key, on) {
    try {
      if (on) { window.localStorage.setItem(key, "on"); } else { window.localStorage.removeItem(key); }
    } catch (e) { /* private mode: the choice lasts this page only */ }
  }
  function supported() { return "Notification" in window; }
  function notifying() { return supported() && kept(NOTIFY) && Notification.permission === "granted"; }
  // The controls come with each version of <main> (hidden without script): set them again.
  function sync() {
    var box = document.querySelector(".notify");
    if (!box) { return; }
    var button = box.querySelector(".notify-toggle");
    var note = box.querySelector(".notify-note");
    var on = notifying();
    box.hidden = false;
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = button.getAttribute(on ? "data-on" : "data-off");
    button.disabled = !supported();
    note.textContent = !supported() ? note.getAttribute("data-unsupported")
      : Notification.permission === "denied" ? note.getAttribute("data-denied") : "";
    box.querySelector(".notify-sound").checked = kept(SOUND);
  }
  var audio = null;
  function beep() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) { return; }
    audio = audio || new Context();
    if (audio.state === "suspended") { audio.resume(); }
    var tone = audio.createOscillator(), gain = audio.createGain(), now = audio.currentTime;
    tone.type = "sine";
    tone.frequency.setValueAtTime(880, now);
    tone.frequency.setValueAtTime(660, now + 0.12);
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.2, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.3);
    tone.connect(gain).connect(audio.destination);
    tone.start(now);
    tone.stop(now + 0.32);
  }
  function background() { return document.visibilityState === "hidden" || !document.hasFocus(); }
  function announce() {
    var box = document.querySelector(".notify");
    if (!box || !background()) { return; }
    if (notifying()) {
      var shown = new Notification(box.getAttribute("data-title"), {
        body: box.getAttribute("data-body"),
        tag: "kurier-turn-" + box.getAttribute("data-notify-game")
      });
      shown.onclick = function () { window.focus(); shown.close(); };
    }
    if (kept(SOUND)) { beep(); }
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".notify-toggle");
    if (!button) { return; }
    if (notifying()) { keep(NOTIFY, false); sync(); return; }
    // Asked here only, on the player's click (browsers refuse or flag an unprompted ask).
    Notification.requestPermission().then(function (answer) {
      keep(NOTIFY, answer === "granted");
      sync();
    });
  });
  document.addEventListener("change", function (event) {
    if (!event.target.matches(".notify-sound")) { return; }
    keep(SOUND, event.target.checked);
    if (event.target.checked) { beep(); }  // how it sounds; the click also lets audio play later
  });
  var mine = null;
  function turn() {
    var page = document.querySelector("[data-game]");
    return page !== null && page.getAttribute("data-my-turn") === "yes";
  }
  document.addEventListener("DOMContentLoaded", function () { mine = turn(); sync(); });
  document.addEventListener("kurier:updated", function () {
    var now = turn();
    if (now && mine === false) { announce(); }
    mine = now;
    sync();
  });
})();
