// The staging of a move's parts, free of the DOM (node --test imports it). A part is
// { moves: [notation, ...], label, ... } (a card laid, a building placed, a march of several
// steps); the table is the server's answer to what may follow the parts staged so far. A
// whole move is the staged parts' moves, handed to one callback.

export function createStaging(table) {
  let current = table;
  const parts = [];
  const before = [];
  return {
    /** The legal actions and labels that follow what is staged. */
    table: () => current,
    /** The table before the last part was staged (null when nothing is). */
    previous: () => (before.length ? before[before.length - 1] : null),
    parts: () => parts.slice(),
    last: () => (parts.length ? parts[parts.length - 1] : null),
    size: () => parts.length,
    /** Every staged part's moves, in order: the whole move so far. */
    moves: () => parts.reduce((all, p) => all.concat(p.moves), []),
    /** What the confirm bar says: the parts' labels. */
    text: () => parts.map((p) => p.label).join(" \u00B7 "),
    stage(part) {
      before.push(current);
      parts.push(part);
      return part;
    },
    /** The server's table after the staged parts. */
    follow(answer) {
      current = answer;
    },
    /** Takes the last part back (null when nothing is staged), with the table before it. */
    undo() {
      if (!parts.length) { return null; }
      current = before.pop();
      return parts.pop();
    },
    /** Nothing staged, on this table. */
    reset(next) {
      parts.length = 0;
      before.length = 0;
      current = next;
    },
    /** Whether a move is staged and nothing may follow it. */
    complete: () => parts.length > 0 && current.actions.length === 0,
  };
}

/**
 * The whole move handed to ``onMove`` (once), the staging emptied when it is taken: resolves
 * to onMove's answer, [ok, body]. Nothing staged: null, and onMove is not called.
 */
export function confirmMove(staging, onMove) {
  const moves = staging.moves();
  if (!moves.length) { return null; }
  return Promise.resolve(onMove(moves));
}

/** Whether a part is sent when staged, no Confirm: it draws (``sends``: kits.Table.sends). */
export function sendsAtOnce(part) {
  return !!(part && part.action && part.action.sends);
}
