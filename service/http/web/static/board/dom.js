// Small DOM helpers shared by the board and its controllers.
const SVG_NS = "http://www.w3.org/2000/svg";

export function button(label, onClick, cls) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  if (cls) { b.className = cls; }
  b.addEventListener("click", onClick);
  return b;
}

/** An SVG element with its attributes. */
export function svgElement(name, attrs) {
  const node = document.createElementNS(SVG_NS, name);
  Object.keys(attrs || {}).forEach((k) => node.setAttribute(k, attrs[k]));
  return node;
}

/** The refusal shown over the confirm bar (or the pieces), one at a time. */
export function showError(text, before) {
  let note = document.querySelector(".table-error");
  if (!note) {
    note = document.createElement("p");
    note.className = "note table-error";
    note.setAttribute("role", "alert");
    before.insertAdjacentElement("beforebegin", note);
  }
  note.textContent = text || "refused";
}

/** The element with this id inside ``root`` (ids of the picture may hold commas). */
export function byId(root, id) {
  return root ? root.querySelector("[id='" + String(id).replace(/'/g, "") + "']") : null;
}
