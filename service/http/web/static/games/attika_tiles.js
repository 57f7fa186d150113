// Attika's map tiles, free of the DOM (node --test imports it): the legal placements of the
// drawn tile at a place, one per rotation, and the hexes a placement covers. The server sends
// the tile's seven hexes per rotation as offsets from its centre with their fills
// (engine/attika/targets.py tile_shape); nothing here decides where a tile fits.

export function isTile(action) {
  return action.rotation !== undefined && action.rotation !== null;
}

/** The placements at the place ``id``, one per rotation. */
export function rotations(actions, id) {
  return actions.filter((a) => isTile(a) && a.target === id);
}

/** The placement at ``id`` in the rotation shown (``turn``), else its first. */
export function tileAt(actions, id, turn) {
  const here = rotations(actions, id);
  return here.find((a) => a.rotation === turn) || here[0] || null;
}

/** The rotation after ``turn`` among those legal at the place (in their order). */
export function nextRotation(turns, turn) {
  return turns[(turns.indexOf(turn) + 1) % turns.length];
}

/** The hexes a placement covers: [id, fill] each ("hex-q,r"), from its rotation's shape. */
export function coveredHexes(action, shapes) {
  if (!action || !shapes || !shapes[action.rotation]) { return []; }
  const at = action.target.slice(4).split(",").map(Number);
  return shapes[action.rotation].map((h) => ["hex-" + (at[0] + h[0]) + "," + (at[1] + h[1]), h[2]]);
}
