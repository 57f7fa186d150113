// What the server's legal actions light up, free of the DOM (node --test imports it). Each
// action names its ``pick`` (a piece: a card, a tile, a building, a counter...), its notation
// ``n`` and, when it goes somewhere on the board, its ``target`` (an element id of the picture).

/** The actions by their pick, in order. */
export function byPick(actions) {
  const out = {};
  actions.forEach((a) => { (out[a.pick] = out[a.pick] || []).push(a); });
  return out;
}

/** Each action as [pick, place or null]: what lights up when its piece is picked. */
export function pickPlaces(actions) {
  return actions.map((a) => [a.pick, a.target || null]);
}

/**
 * The places a pick lights up, each once, with what a screen reader says of it: the place's
 * name, the move (or the pick, when several moves go there) and its cost.
 */
export function litPlaces(actions, pick, places) {
  const mine = actions.filter((a) => a.pick === pick && a.target);
  const lit = new Map();  // each place once, with the last of its moves (as drawn last)
  mine.forEach((a) => {
    const many = mine.filter((b) => b.target === a.target).length > 1;
    const label = (places[a.target] || a.target) + "; " + (many ? pick : a.n) + (a.cost ? "; " + a.cost : "");
    lit.set(a.target, { target: a.target, n: a.n, label, many });
  });
  return Array.from(lit.values());
}

/** The moves at one place for a pick. */
export function movesAt(actions, pick, target) {
  return actions.filter((a) => a.pick === pick && a.target === target);
}

/**
 * The moves of a pick offered as buttons: those with no place on the board (``onBoard`` says
 * whether a place is drawn), or all of them when they all go to one place.
 */
export function looseMoves(actions, onBoard) {
  const sameTarget = actions.length > 1 && actions.every((a) => a.target && a.target === actions[0].target);
  return sameTarget ? actions.slice() : actions.filter((a) => !a.target || !onBoard(a.target));
}

/** Whether two hands of cards hold the same cards (in any order). */
export function sameCards(a, b) {
  return a.length === b.length && a.slice().sort().join() === b.slice().sort().join();
}

/** The move laying exactly the cards ``chosen``, if any. */
export function cardsMove(actions, chosen) {
  return actions.find((a) => a.cards && sameCards(a.cards, chosen)) || null;
}
