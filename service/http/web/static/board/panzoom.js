// Pan and zoom for every board: the + and - buttons, pinch, drag, and on request the wheel,
// the keyboard (arrows, + - 0 on the focused board) and a double tap. The maths is view.js's;
// this module reads the pointers and sizes and moves the layer (a CSS transform). The view
// outlives an update in place: ``attach`` binds the same view to the new version's elements.
import { centreOn, clampView, pinchStep, zoomAround } from "./view.js";

/**
 * options: maxScale; step (the buttons' factor); centre (content smaller than the frame is
 * centred); wheel, keyboard, doubleTap (which inputs zoom besides the buttons and a pinch);
 * dragAlways (a drag pans at any scale, and a drag is no click); frameHeight(box) (the
 * frame's height, default the box's); content(box, layer) (the unzoomed content's size,
 * default the frame's); onChange(view, jump) (after each move; ``jump`` for a move drawn at
 * once, a jump to a place rather than a gesture).
 */
export function createPanZoom(options) {
  const view = { scale: 1, x: 0, y: 0 };
  let box = null, layer = null, listening = null;

  function frame() {
    return { width: box.clientWidth, height: options.frameHeight ? options.frameHeight(box) : box.clientHeight };
  }
  function content() {
    return options.content ? options.content(box, layer) : frame();
  }
  function apply(jump) {
    if (!layer) { return; }
    Object.assign(view, clampView(view, frame(), content(), options.maxScale, options.centre));
    layer.style.transform = "translate(" + view.x + "px," + view.y + "px) scale(" + view.scale + ")";
    if (options.onChange) { options.onChange(view, !!jump); }
  }
  function zoomAt(factor, cx, cy) {
    Object.assign(view, zoomAround(view, factor, cx, cy, options.maxScale));
    apply();
  }
  function centre(factor) {
    const f = frame();
    zoomAt(factor, f.width / 2, f.height / 2);
  }
  /** Shows the unzoomed layer's point (px, py) in the frame's middle at ``scale``, at once. */
  function zoomTo(px, py, scale) {
    Object.assign(view, centreOn(px, py, scale, frame()));
    apply(true);
  }
  function on(target, type, handler, extra) {
    target.addEventListener(type, handler, Object.assign({ signal: listening.signal }, extra || {}));
  }
  function local(e) {
    const r = box.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  function listenPointers() {
    const pointers = {};
    let pinch = null, moved = 0, lastTap = 0;
    on(box, "pointerdown", (e) => {
      if (e.target.closest(".zoom-buttons, .wg-minimap")) { return; }
      pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      moved = 0;
      const ids = Object.keys(pointers);
      if (ids.length === 2) {
        const a = pointers[ids[0]], b = pointers[ids[1]];
        pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y), scale: view.scale };
      }
      if (options.doubleTap && e.pointerType === "touch" && ids.length === 1) {
        const now = Date.now();
        if (now - lastTap < 300) {
          const p = local(e);
          zoomAt(view.scale > 1.5 ? 1 / view.scale : 2, p.x, p.y);
        }
        lastTap = now;
      }
    });
    on(box, "pointermove", (e) => {
      const p = pointers[e.pointerId];
      if (!p) { return; }
      const ids = Object.keys(pointers);
      moved += Math.abs(e.clientX - p.x) + Math.abs(e.clientY - p.y);
      if (ids.length === 2 && pinch) {
        pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
        const r = box.getBoundingClientRect();
        const step = pinchStep(pinch, pointers[ids[0]], pointers[ids[1]], view.scale);
        zoomAt(step.factor, step.cx - r.left, step.cy - r.top);
      } else if (ids.length === 1 && (options.dragAlways || view.scale > 1)) {
        view.x += e.clientX - p.x;
        view.y += e.clientY - p.y;
        pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
        apply();
      }
    });
    const up = (e) => {
      delete pointers[e.pointerId];
      if (Object.keys(pointers).length < 2) { pinch = null; }
    };
    on(box, "pointerup", up);
    on(box, "pointercancel", up);
    if (options.dragAlways) {
      // A drag or a pinch is not a tap: its click picks nothing up.
      on(box, "click", (e) => {
        if (moved > 12 && !e.target.closest(".zoom-buttons")) { e.stopPropagation(); e.preventDefault(); }
        moved = 0;
      }, { capture: true });
    }
  }

  function listenKeys() {
    const step = 60;
    const keys = {
      "+": () => centre(1.4), "=": () => centre(1.4), "-": () => centre(1 / 1.4),
      ArrowLeft: () => { view.x += step; apply(); }, ArrowRight: () => { view.x -= step; apply(); },
      ArrowUp: () => { view.y += step; apply(); }, ArrowDown: () => { view.y -= step; apply(); },
      0: () => { view.scale = 1; apply(); },
    };
    box.setAttribute("tabindex", "0");
    on(box, "keydown", (e) => {
      if (e.target !== box || !keys[e.key]) { return; }
      e.preventDefault();
      keys[e.key]();
    });
  }

  /** Binds the view to a board's box (its .zoom layer inside): again after an update. */
  function attach(next) {
    if (listening) { listening.abort(); }
    listening = new AbortController();
    box = next;
    layer = box.querySelector(".zoom");
    if (!layer) { return; }
    const buttons = box.querySelector(".zoom-buttons");
    if (buttons) {
      on(buttons.querySelector(".zoom-in"), "click", () => centre(options.step));
      on(buttons.querySelector(".zoom-out"), "click", () => centre(1 / options.step));
    }
    if (options.wheel) {
      on(box, "wheel", (e) => {
        e.preventDefault();
        const p = local(e);
        zoomAt(Math.exp(-e.deltaY * 0.0015), p.x, p.y);
      }, { passive: false });
    }
    if (options.keyboard) { listenKeys(); }
    listenPointers();
    on(window, "resize", () => apply());
  }

  return {
    view, attach, apply, zoomAt, zoomTo, centre, frame,
    get box() { return box; },
    get layer() { return layer; },
    on: (target, type, handler, extra) => on(target, type, handler, extra),
  };
}
