// Time banks counting down on the game's page (docs/web.md): each <time class="bank-clock">
// holds what the seat's bank held when the page was made (data-left, seconds; data-at, the
// server's Unix time then), whether it runs (data-running) and until when it counts down
// (data-counts-until: a weekend's start where the game pauses weekends; empty: until zero).
// The page ticks them once a second by itself: no request to the server.

// Seconds a bank holds at nowSeconds (Unix time).
export function secondsLeft(bank, nowSeconds) {
  if (!bank.running) {
    return Math.max(0, bank.left);
  }
  const until = bank.countsUntil === null ? nowSeconds : Math.min(nowSeconds, bank.countsUntil);
  return Math.max(0, bank.left - Math.max(0, until - bank.at));
}

// "2 d 4 h", "3 h 12 min", "4 min 9 s": the two largest units; words from the page.
export function formatLeft(seconds, word) {
  const whole = Math.floor(seconds);
  const d = Math.floor(whole / 86400);
  const h = Math.floor((whole % 86400) / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  const parts = [[d, word("D", "d")], [h, word("H", "h")], [m, word("Min", "min")], [s, word("S", "s")]];
  const first = parts.findIndex(([value]) => value > 0);
  if (first < 0) {
    return "0 " + word("S", "s");
  }
  return parts.slice(first, first + 2).map(([value, unit]) => value + " " + unit).join(" ");
}

// A bank's numbers from its element's data attributes.
export function readBank(dataset) {
  return {
    left: Number(dataset.left),
    at: Number(dataset.at),
    running: dataset.running === "true",
    countsUntil: dataset.countsUntil ? Number(dataset.countsUntil) : null,
  };
}

// Show every bank clock under root at nowSeconds.
export function tick(root, nowSeconds, word) {
  root.querySelectorAll("time.bank-clock").forEach((node) => {
    const left = secondsLeft(readBank(node.dataset), nowSeconds);
    node.textContent = formatLeft(left, word);
    node.setAttribute("datetime", "PT" + Math.floor(left) + "S");
    node.classList.toggle("low", left < 86400);
  });
}

function pageWord(name, english) {
  return (document.body && document.body.dataset["w" + name]) || english;
}

if (typeof document !== "undefined") {
  const show = () => tick(document, Date.now() / 1000, pageWord);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", show);
  } else {
    show();
  }
  window.setInterval(show, 1000);
}
