// Play with pieces (Attila, Attika): the player's pieces beside the board (cards, tiles,
// stacks, buildings: buttons with a data-pick), and moves without a piece of their own as
// buttons; a piece picked lights up its places on the board, and a place clicked (or a
// button) stages its move. Cards are tapped into a hand to lay (a conflict, a swap). A game's
// controller is this with its own extras (``extra``: Attika's tile, static/games/attika.js).
import { button, byId } from "./dom.js";
import { fitLit } from "./fit.js";
import { byPick, cardsMove, litPlaces, looseMoves, movesAt } from "./legal.js";

const MAX_CHOICES = 20;

/**
 * extra (all optional): render(board, play) after the pieces are drawn; shown(moves, play)
 * the move said of a place pointed at (of several there); point(board, play, element) when a
 * lit place is pointed at; choose(board, play, moves, element) for several
 * moves at one place (true when it staged one); keydown(board, play, event); staged(board,
 * play, part); reset(board, play).
 */
export function piecesPlay(extra) {
  const more = extra || {};
  // What the player picked (a piece), the cards tapped to lay, the place pointed at.
  const play = { pick: null, chosen: [], pointed: null };

  function picks(board) { return byPick(board.table().actions); }
  function cardMode(board) {
    return !!play.pick && (picks(board)[play.pick] || []).some((a) => a.cards);
  }
  function part(action) {
    return { moves: [action.n], label: action.n, target: action.target || null, action };
  }
  function clearTargets(svg) {
    svg.querySelectorAll(".legal").forEach((el) => {
      el.classList.remove("legal");
      el.removeAttribute("tabindex");
      el.removeAttribute("role");
      el.removeAttribute("aria-label");
    });
  }

  function renderPieces(board, all, cards) {
    const { pieces } = board.elements;
    pieces.querySelectorAll("[data-pick]").forEach((el) => {
      if (el.classList.contains("gen")) { return; }
      const isCard = el.classList.contains("card-piece");
      el.disabled = board.busy || !(all[el.dataset.pick] || (cards && isCard));
      el.setAttribute("aria-pressed", el.dataset.pick === play.pick ? "true" : "false");
      const mark = el.querySelector(".chosen");
      if (mark) {
        const n = play.chosen.filter((c) => c === el.dataset.card).length;
        mark.hidden = !(cards && n);
        mark.textContent = String(n);
      }
    });
  }
  function renderChoices(board, all, cards) {
    const { pieces, choices } = board.elements;
    choices.textContent = "";
    Object.keys(all).forEach((p) => {
      if (pieces.querySelector("[data-pick='" + p + "']:not(.gen)")) { return; }
      const label = board.table().labels[p] || (all[p].length === 1 ? all[p][0].n : p);
      const b = button(label, () => choose(board, p), "piece gen");
      b.dataset.pick = p;
      b.disabled = board.busy;
      b.setAttribute("aria-pressed", p === play.pick ? "true" : "false");
      choices.appendChild(b);
    });
    if (play.pick && all[play.pick]) { renderOptions(board, all[play.pick], cards); }
  }
  // What a selected pick offers besides board places: buttons (a few), or the cards to tap.
  function renderOptions(board, actions, cards) {
    const { choices, svg } = board.elements;
    if (cards) {
      const match = cardsMove(actions, play.chosen);
      const lay = button(match ? match.n : "\u2026", () => { if (match) { board.stage(part(match)); } }, "lay");
      lay.disabled = !match || board.busy;
      choices.appendChild(lay);
      return;
    }
    const loose = looseMoves(actions, (id) => !!byId(svg, id));
    loose.slice(0, MAX_CHOICES).forEach((a) => {
      choices.appendChild(button(a.n, () => board.stage(part(a)), "option"));
    });
    if (loose.length > MAX_CHOICES) {
      const rest = document.createElement("span");
      rest.textContent = "+" + (loose.length - MAX_CHOICES) + " \u2026";
      choices.appendChild(rest);
    }
  }
  function renderPlaces(board) {
    const { svg } = board.elements;
    clearTargets(svg);
    if (play.pick) {
      litPlaces(board.table().actions, play.pick, board.places()).forEach((place) => {
        const el = byId(svg, place.target);
        if (!el) { return; }
        el.classList.add("legal");
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "button");
        el.setAttribute("aria-label", place.label);
        el.dataset.n = place.n;
      });
    }
    svg.querySelectorAll(".staged").forEach((el) => el.classList.remove("staged"));
    board.staging.parts().forEach((p) => {
      const el = p.target && byId(svg, p.target);
      if (el) { el.classList.add("staged"); }
    });
  }

  function render(board) {
    const all = picks(board);
    const cards = cardMode(board);
    if (board.elements.pieces) { renderPieces(board, all, cards); }
    if (board.elements.choices) { renderChoices(board, all, cards); }
    if (board.elements.svg) { renderPlaces(board); }
    if (more.render) { more.render(board, play); }
  }

  function choose(board, p) {
    if (board.busy) { return; }
    const all = picks(board);
    const { pieces, svg } = board.elements;
    if (cardMode(board)) {
      // Tapping hand cards while laying cards in a conflict (or swapping): count them.
      const el = pieces.querySelector("[data-pick='" + p + "']");
      if (el && el.classList.contains("card-piece") && p !== play.pick) {
        const id = el.dataset.card, have = Number(el.dataset.count);
        const n = play.chosen.filter((c) => c === id).length;
        play.chosen = n < have ? play.chosen.concat([id]) : play.chosen.filter((c) => c !== id);
        board.render();
        return;
      }
    }
    if (play.pick === p) { reset(board); board.render(); return; }
    play.pick = p;
    play.chosen = [];
    const options = all[p] || [];
    if (options.length === 1 && !options[0].target && !options[0].cards) { board.stage(part(options[0])); return; }
    board.render();
    fitLit(board);
    const first = svg && svg.querySelector(".legal");
    if (first && document.activeElement && document.activeElement.closest(".pieces")) {
      // Keyboard players go on to the board; pointer users keep their place.
      if (document.activeElement.matches(":focus-visible")) { first.focus(); }
    }
  }

  function clickPlace(board, el) {
    const here = movesAt(board.table().actions, play.pick, el.id);
    if (here.length === 1) { board.stage(part(here[0])); return; }
    if (more.choose && more.choose(board, play, here, el)) { return; }
    // Several moves at one place: offered as choices.
    const { choices } = board.elements;
    choices.textContent = "";
    here.forEach((a) => choices.appendChild(button(a.n, () => board.stage(part(a)), "option")));
  }
  // A lit place pointed at (or focused): its move said under the pieces.
  function point(board, el) {
    play.pointed = el ? el.id : null;
    const here = el ? movesAt(board.table().actions, play.pick, el.id) : [];
    if (board.info) {
      const a = (more.shown && more.shown(here, play)) || here[0];
      const places = board.places();
      board.info.textContent = a ? (places[a.target] || a.target) + ": " + a.n + (a.cost ? " \u2014 " + a.cost : "") : "";
    }
    if (more.point) { more.point(board, play, el); }
  }

  function attach(board) {
    const { pieces, svg } = board.elements;
    if (!board.playable()) { return; }
    if (pieces) {
      board.on(pieces, "click", (event) => {
        const el = event.target.closest("[data-pick]");
        if (el && !el.classList.contains("gen") && !el.disabled) { choose(board, el.dataset.pick); }
      });
    }
    if (!svg) { return; }
    board.on(svg, "click", (event) => {
      const el = event.target.closest(".legal");
      if (el) { clickPlace(board, el); }
    });
    board.on(svg, "pointerover", (event) => {
      const el = event.target.closest(".legal");
      if (el && el.id !== play.pointed) { point(board, el); }
    });
    board.on(svg, "focusin", (event) => {
      const el = event.target.closest(".legal");
      if (el) { point(board, el); }
    });
    board.on(svg, "keydown", (event) => {
      const el = event.target.closest(".legal");
      if (!el) { return; }
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); clickPlace(board, el); }
      if (/^Arrow/.test(event.key)) {
        event.preventDefault();
        const all = Array.from(svg.querySelectorAll(".legal"));
        const i = all.indexOf(el) + (event.key === "ArrowRight" || event.key === "ArrowDown" ? 1 : -1);
        all[(i + all.length) % all.length].focus();
      }
    });
  }
  function reset(board) {
    play.pick = null;
    play.chosen = [];
    play.pointed = null;
    if (more.reset) { more.reset(board, play); }
  }

  return {
    play,
    doneMark: " \u2714",
    panzoom: { maxScale: 4, step: 1.5, doubleTap: true },
    beforeZoom: phoneMap,
    attach,
    render,
    reset,
    staged(board) {
      play.pick = null;
      play.chosen = [];
      play.pointed = null;
      if (board.info) { board.info.textContent = ""; }
    },
    keydown(board, event) {
      if (event.key === "Escape") { play.pick = null; play.chosen = []; board.render(); }
      if (more.keydown) { more.keydown(board, play, event); }
    },
  };
}

// On a phone a picture with a side panel (Attika) shows its map alone, at full width.
function phoneMap(board) {
  const { box, svg } = board.elements;
  const mapBox = svg && svg.getAttribute("data-map-box");
  if (!mapBox || !box || box.clientWidth >= 600) { return; }
  const parts = mapBox.split(" ");
  svg.setAttribute("viewBox", mapBox);
  svg.setAttribute("width", parts[2]);
  svg.setAttribute("height", parts[3]);
}
