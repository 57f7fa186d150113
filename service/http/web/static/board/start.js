// Starts a game's board on its page: a controller module (static/games/<game>.js) calls
// start(controller). The board is the page's one test hook, window.kurier.board (docs/web.md);
// kurier.js hands it each live update (board.set).
import { createBoard, pageConfig } from "./board.js";

export function start(controller) {
  const board = createBoard(document, pageConfig(document, controller.dataId), controller);
  window.kurier = Object.assign(window.kurier || {}, { board: board.hook() });
  return board;
}
