// The board component, in the spirit of Lichess's chessground: the server hands it what it may
// light (the legal actions, each with its pick and place, and the places' names: the page's
// JSON data block), the board stages the parts the player chooses, asks the server what may
// follow each, and reports the whole move through one callback (``events.move``, with
// Confirm; a part that ``sends``, at once). A live update is ``board.set(config)``: the new
// version's legal actions (and its elements, when the page swapped them), never a second
// start. No rule is decided here: a
// game's controller (static/games/<game>.js) draws its pieces and reads its taps.
//
// config: { game, table, places, confirm ("always" | "never" | "auto"),
//   events: { move(moves) -> Promise<[ok, body]> }, ask(moves, extra) -> Promise<[ok, body]> };
//   set() takes any of them.
// controller: { dataId (the page's JSON data block, default "table-data"), panzoom (createPanZoom's
//   options), beforeZoom(board), attach(board) (once per version of the page's elements),
//   reset(board, why) (forget what was picked; why is "undo" after Undo), render(board),
//   staged(board, part), undo(board), keydown(board, event), hook(board) (more of the test
//   hook) }: docs/web.md, "The board component".
import { showError } from "./dom.js";
import { pickPlaces } from "./legal.js";
import { createPanZoom } from "./panzoom.js";
import { askStaged, sendMove } from "./requests.js";
import { confirmMove, createStaging, sendsAtOnce } from "./staging.js";

/** The elements a board works with, found in the page (again after an update). */
export function boardElements(root) {
  return {
    page: root.querySelector("[data-game]"),
    box: root.querySelector(".table-board"),
    svg: root.querySelector(".table-board .zoom svg"),
    pieces: root.querySelector(".pieces"),
    choices: root.querySelector(".pieces .choices"),
    bar: root.querySelector(".confirm-bar"),
    sent: root.querySelector(".sent-note"),
  };
}

/** The board's config as the page holds it: its JSON data block and its data attributes. */
export function pageConfig(root, dataId) {
  const data = root.getElementById(dataId || "table-data");
  const page = root.querySelector("[data-game]");
  const parsed = data ? JSON.parse(data.textContent) : {};
  return {
    game: page ? page.getAttribute("data-game") : null,
    confirm: (page && page.getAttribute("data-confirm")) || "always",
    table: parsed.table || null,
    places: parsed.places || {},
  };
}

export function createBoard(root, config, controller) {
  const settings = Object.assign({ confirm: "always", places: {}, events: {} }, config);
  const staging = createStaging(settings.table || { actions: [], labels: {} });
  const panzoom = createPanZoom(controller.panzoom || { maxScale: 4, step: 1.5 });
  const board = {
    settings, staging, panzoom, busy: false, elements: {}, info: null, listening: null, sent: "",
    on, render, stage, ask, undo, confirm, error, set, hook,
    table: () => staging.table(),
    places: () => settings.places,
    playable: () => !!settings.table,
  };

  function on(target, type, handler, extra) {
    target.addEventListener(type, handler, Object.assign({ signal: board.listening.signal }, extra || {}));
  }

  // The player's "confirm moves" setting: always (the default: in a slow game a slip costs
  // days), never, or auto: on a touch or narrow screen, where a tap is easily a slip, a
  // complete move waits for Confirm; with a mouse it is sent at once.
  function confirmFirst() {
    if (settings.confirm !== "auto") { return settings.confirm === "always"; }
    return window.matchMedia("(pointer: coarse), (max-width: 600px)").matches;
  }

  function renderBar() {
    const bar = board.elements.bar;
    if (!bar) { return; }
    const staged = staging.size() > 0;
    const rotate = bar.querySelector(".rotate");
    // Shown while something is staged, or a controller's button (a tile's Rotate) is.
    bar.hidden = !staged && (!rotate || rotate.hidden);
    document.body.classList.toggle("staging", staged);
    bar.querySelector(".staged-text").textContent = staging.text() +
      (staging.table().actions.length ? "" : controller.doneMark || "");
    const note = bar.querySelector(".draws-note");
    if (note) { note.hidden = !board.draws; }
    ["confirm", "undo"].forEach((name) => {
      const b = bar.querySelector("." + name);
      b.disabled = board.busy;
      b.hidden = !staged;
    });
    if (rotate) { rotate.disabled = board.busy; }
  }

  // What was sent at once (a part that draws), said until the next part is staged.
  function renderSent() {
    const line = board.elements.sent;
    if (!line) { return; }
    line.hidden = !board.sent;
    line.querySelector(".sent-moves").textContent = board.sent;
  }

  function render() {
    renderSent();
    if (!board.playable()) { return; }
    controller.render(board);
    renderBar();
  }

  /** Stages a part ({ moves, label, ... }) and asks what may follow it. */
  function stage(part) {
    if (board.busy) { return; }
    board.sent = "";
    staging.stage(part);
    if (controller.staged) { controller.staged(board, part); }
    if (sendsAtOnce(part)) {
      staging.follow(Object.assign({}, staging.table(), { actions: [], tile: null }));
      send(staging.text());
      return;
    }
    ask("");
  }

  /**
   * Asks the server what may follow the staged moves (``extra``: more of the query). Its
   * answer is the new table, or (``extra``'s own answers) handed to ``answered``.
   */
  function ask(extra, answered) {
    board.busy = true;
    render();
    return settings.ask(settings.game, staging.moves(), extra).then((got) => {
      board.busy = false;
      if (!got[0] && got[1].draws) {
        // The last part draws what nobody has seen yet (a building turned up, cards drawn):
        // the server does not try it, so nothing may be staged after it; Confirm sends it.
        board.draws = true;
        staging.follow(Object.assign({}, staging.table(), { actions: [], tile: null }));
      } else if (!got[0]) {
        undo();
        error(got[1].error);
        return;
      } else if (!answered || !answered(got[1])) {
        staging.follow(got[1]);
      }
      render();
      if (staging.complete() && !confirmFirst()) { confirm(); }
    }).catch(() => { board.busy = false; undo(); });
  }

  function undo() {
    if (controller.undo && controller.undo(board)) { return; }
    const part = staging.undo();
    board.draws = false;
    controller.reset(board, "undo");
    render();
    // Nothing staged any more: a newer version that waited may now be shown (kurier.js).
    if (part && !staging.size()) { document.dispatchEvent(new CustomEvent("kurier:idle")); }
  }

  function error(text) {
    showError(text, board.elements.bar || board.elements.pieces);
  }

  /** Confirm: the whole move through the one callback. */
  function confirm() {
    send("");
  }

  /** The whole move through the one callback; ``sent``: what the sent line says after. */
  function send(sent) {
    if (!staging.size() || board.busy) { return; }
    board.busy = true;
    render();
    confirmMove(staging, settings.events.move).then((got) => {
      board.busy = false;
      board.draws = false;
      staging.reset(got[0] ? staging.table() : settings.table);
      if (!got[0]) {
        error(got[1].error);
        controller.reset(board);
        render();
        return;
      }
      board.sent = sent;
      render();
      document.dispatchEvent(new CustomEvent("kurier:played", { detail: got[1] }));
    }).catch(() => { board.busy = false; render(); });
  }

  // Binds the board to the page's elements: at the start, and after an update that swapped
  // them (a live update in place keeps some, replaces others).
  function bind() {
    if (board.listening) { board.listening.abort(); }
    board.listening = new AbortController();
    board.elements = boardElements(root);
    const { box, bar, pieces } = board.elements;
    if (controller.beforeZoom) { controller.beforeZoom(board); }
    if (box) { panzoom.attach(box); }
    board.info = null;
    if (pieces) { pieces.querySelectorAll(".target-info").forEach((p) => p.remove()); }
    if (pieces && board.playable()) {
      board.info = document.createElement("p");
      board.info.className = "target-info";
      board.info.setAttribute("aria-live", "polite");
      pieces.appendChild(board.info);
    }
    if (bar) {
      on(bar.querySelector(".confirm"), "click", confirm);
      on(bar.querySelector(".undo"), "click", undo);
    }
    on(document, "keydown", (event) => {
      if (event.target.closest && event.target.closest("input, textarea, select")) { return; }
      if (controller.keydown) { controller.keydown(board, event); }
    });
    controller.attach(board);
    if (box) { panzoom.apply(); }
  }

  /** A live update: the new version's legal actions and places (and elements). */
  function set(next) {
    Object.assign(settings, next);
    staging.reset(settings.table || { actions: [], labels: {} });
    board.busy = false;
    board.draws = false;
    controller.reset(board);
    bind();
    render();
  }

  /** What the browser tests read (window.kurier.board): see docs/web.md, "The test hook". */
  function hook() {
    return Object.assign({
      set: (next) => set(Object.assign(pageConfig(root, controller.dataId), next || {})),
      staged: () => staging.moves(),
      actions: () => pickPlaces(staging.table().actions),
    }, controller.hook ? controller.hook(board) : {});
  }

  settings.ask = settings.ask || askStaged;
  settings.events.move = settings.events.move || ((moves) => sendMove(settings.game, moves));
  controller.reset(board);
  bind();
  render();
  return board;
}
