// Pointer gestures for the full-screen viewer (viewer.js): one recogniser for mouse, pen and
// touch (Pointer Events), reporting what the pointers mean, never how the viewer reacts.
//
//   galleryViewerGestures(stage, on) with callbacks (points are client coordinates):
//   on.zoomed()               whether a one-finger drag pans (zoomed in) rather than swipes
//   on.pinchStart(mid)        two fingers down;  on.pinch(scale, mid)  scale against the start
//   on.panStart()             one pointer drags while zoomed;  on.pan(dx, dy)
//   on.drag(dx), on.dragEnd(dx)   horizontal drag (swipe) and its release
//   on.pull(dy), on.pullEnd(dy)   downward drag (swipe down) and its release
//   on.doubleTap(point)       two taps within 300 ms and 30 px
//   on.wheel(deltaPixels, point)
window.galleryViewerGestures = function (stage, on) {
  "use strict";
  var pointers = {};
  var gesture = null;
  var lastTap = { t: 0, x: 0, y: 0 };

  function count() { return Object.keys(pointers).length; }
  function two() {
    var ids = Object.keys(pointers), a = pointers[ids[0]], b = pointers[ids[1]];
    return { d: Math.hypot(a.x - b.x, a.y - b.y), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }

  stage.addEventListener("pointerdown", function (e) {
    if (e.button !== 0 && e.pointerType === "mouse") return;
    // A video's controls and the slide's own buttons keep their pointer (capturing it here
    // would send their clicks to the stage).
    if (e.target && e.target.closest && e.target.closest("video[controls], button, a")) return;
    try { stage.setPointerCapture(e.pointerId); } catch (err) { /* a pointer the browser no longer tracks */ }
    pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
    if (count() === 2) {
      var t = two();
      gesture = { kind: "pinch", d0: Math.max(1, t.d) };
      on.pinchStart({ x: t.x, y: t.y });
    } else if (count() === 1) {
      gesture = { kind: "pending", x0: e.clientX, y0: e.clientY };
    }
  });

  stage.addEventListener("pointermove", function (e) {
    if (!pointers[e.pointerId] || !gesture) return;
    pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
    if (gesture.kind === "pinch") {
      if (count() < 2) return;
      var t = two();
      on.pinch(t.d / gesture.d0, { x: t.x, y: t.y });
      return;
    }
    var dx = e.clientX - gesture.x0, dy = e.clientY - gesture.y0;
    if (gesture.kind === "pending" && Math.hypot(dx, dy) > 8) {
      // The first 8 px decide: pan when zoomed, else swipe sideways, pull down, or nothing.
      gesture.kind = on.zoomed() ? "pan" : Math.abs(dx) >= Math.abs(dy) ? "drag" : dy > 0 ? "pull" : "none";
      if (gesture.kind === "pan") on.panStart();
    }
    if (gesture.kind === "pan") on.pan(dx, dy);
    else if (gesture.kind === "drag") on.drag(dx);
    else if (gesture.kind === "pull") on.pull(Math.max(0, dy));
  });

  function end(e) {
    var p = pointers[e.pointerId];
    if (!p) return;
    delete pointers[e.pointerId];
    if (!gesture) return;
    if (gesture.kind === "pinch") {
      // The finger left behind does nothing until all are up.
      gesture = count() === 0 ? null : { kind: "none" };
      return;
    }
    if (count() > 0) return;
    var g = gesture;
    gesture = null;
    var dx = p.x - g.x0, dy = p.y - g.y0;
    if (g.kind === "drag") on.dragEnd(dx);
    else if (g.kind === "pull") on.pullEnd(dy);
    else if (g.kind === "pending" && e.type === "pointerup") {
      var now = Date.now();
      if (now - lastTap.t < 300 && Math.hypot(p.x - lastTap.x, p.y - lastTap.y) < 30) {
        lastTap.t = 0;
        on.doubleTap({ x: p.x, y: p.y });
      } else {
        lastTap = { t: now, x: p.x, y: p.y };
      }
    }
  }
  stage.addEventListener("pointerup", end);
  stage.addEventListener("pointercancel", end);

  stage.addEventListener("wheel", function (e) {
    e.preventDefault();
    var unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    on.wheel(e.deltaY * unit, { x: e.clientX, y: e.clientY });
  }, { passive: false });
};
