// Attila's table: the generic play with pieces (cards, action tiles; board/pieces.js), with
// nothing of its own.
import { piecesPlay } from "../board/pieces.js";
import { start } from "../board/start.js";

start(piecesPlay());
