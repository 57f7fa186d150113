// Attika's table: the generic play with pieces (board/pieces.js) and the drawn map tile,
// previewed in place where it is pointed at and turned with Rotate (R) before or after it is
// placed. The picture drew every place a legal placement may cover; a preview fills those
// places with the tile's colours. A map whose words do not read at its whole view opens
// zoomed to where the player acts (board/focus.js), once a page: an update keeps the zoom.
import { byId } from "../board/dom.js";
import { openOnAction, readsWhole } from "../board/focus.js";
import { byPick } from "../board/legal.js";
import { piecesPlay } from "../board/pieces.js";
import { start } from "../board/start.js";
import { coveredHexes, isTile, nextRotation, rotations, tileAt } from "./attika_tiles.js";

let turn = 0;  // the rotation shown
let opened = false;  // the map's opening view chosen (once a page)
// The most zoom the map opens at (the board's pan and zoom allow as much).
const MAX_SCALE = 4;

function clearPreview(svg) {
  svg.querySelectorAll(".preview").forEach((g) => {
    g.querySelector("polygon").setAttribute("fill", g.dataset.fill);
    g.classList.remove("preview");
  });
}
function preview(svg, action, shapes) {
  clearPreview(svg);
  coveredHexes(action, shapes).forEach(([id, fill]) => {
    const g = byId(svg, id);
    const shape = g && g.querySelector("polygon");
    if (!shape) { return; }
    if (!g.classList.contains("preview")) { g.dataset.fill = shape.getAttribute("fill"); }
    g.classList.add("preview");
    shape.setAttribute("fill", fill);
  });
}
/** The tile placement staged last, if the last part is one. */
function lastTile(board) {
  const last = board.staging.last();
  return last && last.action && isTile(last.action) ? last.action : null;
}
function choosing(board, play) {
  return !!play.pick && (byPick(board.table().actions)[play.pick] || []).some(isTile);
}

function render(board, play) {
  const { svg, bar } = board.elements;
  const rotateButton = bar && bar.querySelector(".rotate");
  const placed = lastTile(board);
  const picking = choosing(board, play);
  if (rotateButton) { rotateButton.hidden = !(picking || placed); }
  if (!svg) { return; }
  if (picking && play.pointed) {
    preview(svg, tileAt(byPick(board.table().actions)[play.pick], play.pointed, turn), board.table().tile);
  } else if (placed) {
    preview(svg, placed, board.staging.previous().tile);
  } else {
    clearPreview(svg);
  }
}

function rotate(board, play) {
  if (board.busy) { return; }
  const mine = byPick(board.table().actions)[play.pick] || [];
  const placed = lastTile(board);
  if (play.pick && rotations(mine, play.pointed).length) {
    turn = nextRotation(rotations(mine, play.pointed).map((a) => a.rotation), turn);
    board.render();
  } else if (placed) {
    const all = rotations(board.staging.previous().actions, placed.target);
    const next = all[(all.findIndex((a) => a.rotation === placed.rotation) + 1) % all.length];
    turn = next.rotation;
    // Take the staged placement back and stage the turned one (no idle in between).
    board.staging.undo();
    board.stage({ moves: [next.n], label: next.n, target: next.target, action: next });
  } else if (play.pick) {
    turn = (turn + 1) % 6;
    board.render();
  }
}

// A place pointed at: the tile previewed there in the rotation shown, and that move said.
function point(board, play) {
  render(board, play);
}
function shown(here, play) {
  return tileAt(here, play.pointed, turn);
}

// A place with a tile's rotations: the one shown is staged (turned afterwards with Rotate).
function choose(board, play, here, el) {
  const tile = tileAt(here, el.id, turn);
  if (!tile) { return false; }
  play.pointed = null;
  board.stage({ moves: [tile.n], label: tile.n, target: tile.target, action: tile });
  return true;
}

// The places of the pending decision (every legal action's site on the map, in order), and
// a selector of them: where the player acts, and the targets whose size counts.
function actingPlaces(board) {
  const { svg } = board.elements;
  const ids = board.playable() ? Array.from(new Set(board.table().actions.map((a) => a.target).filter(Boolean))) : [];
  const places = ids.map((id) => byId(svg, id)).filter(Boolean);
  const selector = places.map((el) => "[id='" + el.id.replace(/'/g, "") + "']").join(", ");
  return { places, selector: selector || ".legal" };
}

// The map opens, when its words do not read at its whole view (a grown map, the empty places
// round it while a tile is placed), zoomed to them round the sites of the pending decision
// (or the last move, or its middle); pan, pinch and - show the whole.
function openOnce(board) {
  const { svg } = board.elements;
  if (opened || !svg || !board.panzoom.layer) { return; }
  const { places, selector } = actingPlaces(board);
  if (readsWhole(svg, board.panzoom, selector)) {
    opened = board.panzoom.layer.offsetWidth > 0;
    return;
  }
  opened = openOnAction(svg, board.panzoom, MAX_SCALE, {
    acting: places, targets: selector, last: "[id^='last-move-']", closest: 1,
  });
}

const controller = piecesPlay({
  render, point, shown, choose,
  keydown(board, play, event) {
    if ((event.key === "r" || event.key === "R") && !event.ctrlKey && !event.metaKey && !event.altKey) { rotate(board, play); }
  },
});
const attachPieces = controller.attach, renderPieces = controller.render;
controller.attach = (board) => {
  attachPieces(board);
  const button = board.elements.bar && board.elements.bar.querySelector(".rotate");
  if (button) { board.on(button, "click", () => rotate(board, controller.play)); }
  if (!board.playable()) { openOnce(board); }
};
controller.render = (board) => {
  renderPieces(board);
  openOnce(board);
};
start(controller);
