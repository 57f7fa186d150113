// The wargame's mini-map, in the board's bottom left corner, with the part in view framed; a
// tap there centres the map on that place. A canvas: the ground drawn once a game
// (miniGround), the counters as squares on each update. (An SVG <use> of #map drew the map's
// 5,600 elements a second time, again on every change inside #map.)

/** A hex's corners, from its polygon's points. */
export function points(shape) {
  return shape.getAttribute("points").trim().split(/\s+/).map((p) => p.split(",").map(Number));
}

// -- The mini-map's pictures --------------------------------------------------------------
// Drawn from the picture's own attributes (no layout asked for): the hexes' fills, the
// empires' borders and the rivers, once per map (its kept part's key, service/pictures/
// keep.py); MINI_W pixels wide, twice the widest mini-map for a sharp picture.
const MINI_W = 280;
let drawnGround = null;
function miniGround(svg) {
  var hexes = svg.querySelector("#hexes");
  var key = hexes && hexes.getAttribute("data-keep");
  if (!key) { return null; }
  if (drawnGround && drawnGround.key === key) { return drawnGround; }
  var shapes = Array.prototype.map.call(hexes.querySelectorAll("polygon"), function (p) {
    return { at: points(p), fill: p.getAttribute("fill") };
  });
  var xs = [], ys = [];
  shapes.forEach(function (s) { s.at.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); }); });
  if (!xs.length) { return null; }
  var box = { x: Math.min.apply(null, xs), y: Math.min.apply(null, ys) };
  box.width = Math.max.apply(null, xs) - box.x;
  box.height = Math.max.apply(null, ys) - box.y;
  var canvas = document.createElement("canvas");
  canvas.width = MINI_W;
  canvas.height = Math.round(MINI_W * box.height / box.width);
  var k = MINI_W / box.width, c = canvas.getContext("2d");
  c.setTransform(k, 0, 0, k, -box.x * k, -box.y * k);
  c.lineWidth = 1 / k;
  shapes.forEach(function (s) {
    c.beginPath();
    s.at.forEach(function (p, i) { if (i) { c.lineTo(p[0], p[1]); } else { c.moveTo(p[0], p[1]); } });
    c.closePath();
    c.fillStyle = c.strokeStyle = s.fill || "#ccc";
    c.fill();
    c.stroke();  // in its own colour: no light seams between the hexes
  });
  ["#borders", "#rivers"].forEach(function (id) {
    var lines = svg.querySelector(id);
    if (!lines) { return; }
    c.strokeStyle = lines.getAttribute("stroke");
    c.lineWidth = Math.max(1.5 / k, Number(lines.getAttribute("stroke-width")) || 1);
    c.beginPath();
    lines.querySelectorAll("line").forEach(function (l) {
      c.moveTo(Number(l.getAttribute("x1")), Number(l.getAttribute("y1")));
      c.lineTo(Number(l.getAttribute("x2")), Number(l.getAttribute("y2")));
    });
    c.stroke();
  });
  drawnGround = { key: key, box: box, canvas: canvas };
  return drawnGround;
}
// The ground, and each counter as a square of its colour, where it stands now.
function miniCanvas(svg, drawn) {
  var canvas = document.createElement("canvas");
  canvas.width = drawn.canvas.width;
  canvas.height = drawn.canvas.height;
  var c = canvas.getContext("2d"), k = canvas.width / drawn.box.width;
  c.drawImage(drawn.canvas, 0, 0);
  c.setTransform(k, 0, 0, k, -drawn.box.x * k, -drawn.box.y * k);
  function at(shape, name) { return Number(shape.getAttribute(name)); }
  // A counter's face, or a command unit's disc; the side's band is the colour seen from afar.
  svg.querySelectorAll("g[id^='unit-'] > rect[stroke], g[id^='unit-'] > circle[stroke]").forEach(function (s) {
    c.fillStyle = s.getAttribute("stroke");
    if (s.tagName === "rect") {
      c.fillRect(at(s, "x"), at(s, "y"), at(s, "width"), at(s, "height"));
    } else {
      c.fillRect(at(s, "cx") - at(s, "r"), at(s, "cy") - at(s, "r"), 2 * at(s, "r"), 2 * at(s, "r"));
    }
  });
  return canvas;
}

/**
 * The mini-map of ``svg`` put in ``box`` (in place of one an earlier version left), or null
 * for a picture without a kept map. ``jump(x, y, scale)`` centres the map's point (x, y);
 * ``frame`` (the view, the visible frame's height, the SVG's scale) draws the frame.
 */
export function createMiniMap(box, svg, jump) {
  const old = box.querySelector(".wg-minimap");
  if (old) { old.remove(); }
  const drawn = svg && miniGround(svg), whole = drawn && drawn.box;
  if (!drawn) { return null; }
  const mini = document.createElement("div");
  mini.className = "wg-minimap";
  mini.setAttribute("aria-hidden", "true");  // the keyboard pans with the arrow keys
  mini.style.aspectRatio = whole.width + " / " + whole.height;
  mini.appendChild(miniCanvas(svg, drawn));
  const miniFrame = document.createElement("div");
  miniFrame.className = "wg-minimap-frame";
  mini.appendChild(miniFrame);
  box.appendChild(mini);
  mini.addEventListener("pointerdown", (e) => {
    e.stopPropagation();
    const r = mini.getBoundingClientRect();
    jump(whole.x + ((e.clientX - r.left) / r.width) * whole.width, whole.y + ((e.clientY - r.top) / r.height) * whole.height);
  });
  return {
    /** The part in view framed: the view, the map window's height, SVG units to pixels. */
    frame(view, height, k) {
      const vb = svg.viewBox.baseVal;
      mini.style.bottom = (box.clientHeight - height + 6) + "px";
      const m = mini.clientWidth / whole.width;
      const x = vb.x - view.x / k, y = vb.y - view.y / k;
      const left = Math.max(0, (x - whole.x) * m), top = Math.max(0, (y - whole.y) * m);
      const right = Math.min(mini.clientWidth, (x + box.clientWidth / k - whole.x) * m);
      const bottom = Math.min(mini.clientHeight, (y + height / k - whole.y) * m);
      miniFrame.style.transform = "translate(" + left + "px," + top + "px)";
      miniFrame.style.width = Math.max(2, right - left) + "px";
      miniFrame.style.height = Math.max(2, bottom - top) + "px";
    },
  };
}
