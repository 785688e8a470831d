// Full-screen viewer over the album grid and the detail page (progressive enhancement: without
// this script every link still leads to the photo's own page). viewer-album.js fetches the
// album's order and picks sizes: the smallest that covers the shown size × devicePixelRatio,
// the largest once zoomed in; viewer-gestures.js recognises swipes, pinches and taps.
// The address bar follows the photo shown: opening pushes one history entry (so Back closes
// the viewer), stepping replaces it (so a copied URL opens that photo's page).
(function () {
  "use strict";
  if (!window.fetch || !window.history || !history.pushState || !window.Promise || !window.galleryViewerGestures || !window.galleryViewerAlbum) return;

  var INTERVALS = [2, 3, 5, 10];
  var MAX_ZOOM = 4;
  var reduceMotion = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };

  var Sequence = window.galleryViewerAlbum.Sequence;
  var fittedSize = window.galleryViewerAlbum.fittedSize;
  var pickSource = window.galleryViewerAlbum.pickSource;

  // ---- The dialog ----
  var ui = null;
  var state = {
    open: false, seq: null, index: 0, opener: null, pushed: false, pagePhotoURL: null, title: document.title,
    zoom: 1, panX: 0, panY: 0, slideshow: null, interval: 5, placeholder: null, leaving: false, pendingOpen: null
  };

  function el(tag, cls, attrs) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }

  function button(cls, label, text, onClick) {
    var b = el("button", "viewer-button " + cls, { type: "button", "aria-label": label, title: label });
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }

  function build() {
    var root = el("div", "viewer", { role: "dialog", "aria-modal": "true", "aria-label": "Photo viewer", tabindex: "-1", hidden: "" });
    var stage = el("div", "viewer-stage");
    var strip = el("div", "viewer-strip");
    var slides = [-1, 0, 1].map(function (offset) {
      var slide = el("div", "viewer-slide");
      var img = el("img", "viewer-img", { alt: "", draggable: "false" });
      slide.appendChild(img);
      slide.style.left = offset * 100 + "%";
      strip.appendChild(slide);
      return { el: slide, img: img, index: -1, url: null, offset: offset };
    });
    stage.appendChild(strip);

    var bar = el("div", "viewer-bar");
    var info = el("div", "viewer-info");
    var position = el("p", "viewer-position", { "aria-live": "polite", "aria-atomic": "true" });
    var caption = el("p", "viewer-title");
    info.appendChild(position);
    info.appendChild(caption);
    var tools = el("div", "viewer-tools");
    var play = button("viewer-play", "Start slideshow", "▶", function () { toggleSlideshow(); });
    var interval = el("select", "viewer-interval", { "aria-label": "Slideshow interval", title: "Slideshow interval" });
    INTERVALS.forEach(function (s) {
      var o = el("option", "", { value: String(s) });
      o.textContent = s + " s";
      if (s === state.interval) o.selected = true;
      interval.appendChild(o);
    });
    interval.addEventListener("change", function () {
      state.interval = Number(interval.value) || 5;
      if (state.slideshow) scheduleSlide();
    });
    var zoomOut = button("viewer-zoom-out", "Zoom out", "−", function () { zoomBy(1 / 1.6); });
    var zoomIn = button("viewer-zoom-in", "Zoom in", "+", function () { zoomBy(1.6); });
    var close = button("viewer-close", "Close viewer", "✕", function () { close_(true); });
    [play, interval, zoomOut, zoomIn, close].forEach(function (b) { tools.appendChild(b); });
    bar.appendChild(info);
    bar.appendChild(tools);

    var prev = button("viewer-nav viewer-prev", "Previous photo", "‹", function () { step(-1); });
    var next = button("viewer-nav viewer-next", "Next photo", "›", function () { step(1); });
    root.appendChild(stage);
    root.appendChild(bar);
    root.appendChild(prev);
    root.appendChild(next);
    document.body.appendChild(root);

    ui = { root: root, stage: stage, strip: strip, slides: slides, position: position, caption: caption, play: play,
           interval: interval, prev: prev, next: next, zoomIn: zoomIn, zoomOut: zoomOut, close: close };
    bindGestures();
    root.addEventListener("keydown", onDialogKey);
    window.addEventListener("resize", function () { if (state.open) { resetZoom(); refreshSlides(); } });
  }

  // ---- Videos, Live Photos and motion photos in a slide ----
  // A movie's slide shows its poster (the rendered image) under a play button and plays the
  // original inline with the browser's controls (no zoom); a Live Photo or motion photo shows
  // the still and plays its clip, muted, while its LIVE/MOTION button is pressed or hovered.
  // Stepping away pauses both. A movie the browser cannot decode keeps the poster and says so.
  // A slide gets these elements the first time it shows a movie or clip.
  function buildMedia(s) {
    s.video = el("video", "viewer-video", { controls: "", playsinline: "", preload: "none", hidden: "" });
    s.playButton = el("button", "viewer-video-play", { type: "button", "aria-label": "Play video", hidden: "" });
    s.playButton.textContent = "▶";
    s.note = el("p", "viewer-video-note", { hidden: "" });
    s.clip = el("video", "viewer-clip", { playsinline: "", preload: "none", hidden: "" });
    s.clip.muted = true;
    s.live = el("button", "viewer-live", { type: "button", hidden: "" });
    [s.video, s.clip, s.playButton, s.note, s.live].forEach(function (e) { s.el.appendChild(e); });
    s.playButton.addEventListener("click", function () { s.video.play().catch(function () {}); });
    s.video.addEventListener("play", function () { s.playButton.hidden = true; stopSlideshow(); });
    s.video.addEventListener("pause", function () { s.playButton.hidden = !s.movie; });
    function playClip() {
      if (!s.clipURL) return;
      s.clip.hidden = false;
      s.img.style.visibility = "hidden";
      s.clip.currentTime = 0;
      s.clip.play().catch(function () { stopClip(s); });
    }
    s.live.addEventListener("pointerenter", playClip);
    s.live.addEventListener("pointerdown", playClip);
    s.live.addEventListener("pointerleave", function () { stopClip(s); });
    s.live.addEventListener("click", function () { if (s.clip.hidden) playClip(); });
    s.clip.addEventListener("ended", function () { stopClip(s); });
  }

  function stopClip(s) {
    if (!s.clip) return;
    s.clip.pause();
    s.clip.hidden = true;
    s.img.style.visibility = "";
  }

  function pauseMedia(s) {
    if (!s.video) return;
    if (!s.video.paused) s.video.pause();
    stopClip(s);
  }

  /** Puts `photo`'s movie or clip (if any) into `slide`; nil `photo`: an empty slide. */
  function setMedia(slide, photo) {
    var movie = (photo && photo.video) || null, clip = (photo && photo.motion) || null;
    if (!slide.video) {
      if (!movie && !clip) return;
      buildMedia(slide);
    }
    var playable = !!movie && (!photo.codec || slide.video.canPlayType('video/mp4; codecs="' + photo.codec + '"') !== "");
    if (slide.movie !== movie) {
      pauseMedia(slide);
      slide.movie = movie;
      if (playable) slide.video.src = movie; else slide.video.removeAttribute("src");
      slide.note.textContent = "";
      if (movie && !playable) {
        slide.note.appendChild(document.createTextNode("This browser cannot play this video. "));
        var link = el("a", "", { href: movie, download: "" });
        link.textContent = "Download it";
        slide.note.appendChild(link);
      }
    }
    slide.el.classList.toggle("viewer-movie", !!movie);
    slide.video.hidden = !playable;
    slide.img.hidden = playable;
    slide.playButton.hidden = !playable || !slide.video.paused;
    slide.note.hidden = !movie || playable;
    if (slide.clipURL !== clip) {
      stopClip(slide);
      slide.clipURL = clip;
      if (clip) slide.clip.src = clip; else slide.clip.removeAttribute("src");
    }
    slide.live.hidden = !clip;
    slide.live.textContent = clip && /\/motion$/.test(clip) ? "MOTION" : "LIVE";
    slide.live.setAttribute("aria-label", clip && /\/motion$/.test(clip) ? "Play the motion photo" : "Play the Live Photo");
  }

  function isMovie(index) {
    var photo = state.seq && state.seq.get(index);
    return !!(photo && photo.video);
  }

  function box() {
    return { w: ui.stage.clientWidth || window.innerWidth, h: ui.stage.clientHeight || window.innerHeight };
  }

  function current() { return ui.slides[1]; }

  /** Shows photo `index` in `slide`, loading the right size; the visible image is replaced only
      once the new one has loaded, so stepping never flashes an empty frame. */
  function fill(slide, index) {
    if (slide.index !== index) {
      // A slide moved on to another photo: never show the old one in its place meanwhile.
      slide.url = slide.wanted = slide.natural = null;
      slide.img.removeAttribute("src");
    }
    slide.index = index;
    if (index < 0 || index >= state.seq.total) {
      slide.img.removeAttribute("src");
      slide.url = null;
      slide.el.classList.add("viewer-empty");
      setMedia(slide, null);
      return;
    }
    slide.el.classList.remove("viewer-empty");
    var photo = state.seq.get(index);
    if (!photo) {
      setMedia(slide, null);
      state.seq.load(index).then(function () { if (slide.index === index && state.open) fill(slide, index); });
      return;
    }
    setMedia(slide, photo);
    layout(slide, photo);
    var zoomed = slide === current() && state.zoom > 1;
    var url = pickSource(photo, box(), zoomed);
    slide.img.alt = photo.title;
    slide.el.classList.toggle("viewer-broken", !url);
    if (!url) { slide.img.removeAttribute("src"); slide.url = null; return; }
    if (slide.url === url) return;
    slide.wanted = url;
    var loader = new Image();
    loader.onload = function () {
      if (slide.wanted !== url || slide.index !== index) return;
      slide.img.src = url;
      if (slide.video) slide.video.poster = url;
      slide.url = url;
      slide.natural = { w: loader.naturalWidth, h: loader.naturalHeight };
      layout(slide, photo);
    };
    loader.src = url;
    // A placeholder (the grid's thumbnail or the detail image) until the first real size arrives.
    if (!slide.url && slide === current() && state.placeholder) {
      slide.img.src = state.placeholder;
    } else if (!slide.url) {
      slide.img.removeAttribute("src");
    }
  }

  function layout(slide, photo) {
    var size = fittedSize(photo, slide.natural, box());
    [slide.img, slide.video, slide.clip].forEach(function (e) {
      if (!e) return;
      e.style.width = size ? size.w + "px" : "";
      e.style.height = size ? size.h + "px" : "";
    });
  }

  function refreshSlides() {
    ui.slides.forEach(function (s, i) { fill(s, state.index + i - 1); });
  }

  function announce() {
    var photo = state.seq.get(state.index);
    ui.position.textContent = (state.index + 1) + " of " + state.seq.total;
    ui.caption.textContent = photo ? photo.title : "";
    ui.prev.disabled = state.index <= 0;
    ui.next.disabled = state.index >= state.seq.total - 1;
    ui.root.setAttribute("data-index", String(state.index));
    if (photo) document.title = photo.title + " · " + state.title.split(" · ").pop();
  }

  /** Address bar: the photo shown. The first call after opening pushes, later ones replace. */
  function syncURL() {
    var photo = state.seq.get(state.index);
    if (!photo) return;
    var entry = { viewer: true, index: state.index, feed: state.seq.feed };
    if (!state.pushed) {
      history.pushState(entry, "", photo.url);
      state.pushed = true;
    } else if (location.pathname !== photo.url) {
      history.replaceState(entry, "", photo.url);
    }
  }

  function show(index) {
    state.index = index;
    resetZoom();
    refreshSlides();
    // Only the slide in view may play.
    ui.slides.forEach(function (s) { if (s !== current()) pauseMedia(s); });
    announce();
    state.seq.load(index).then(function (photo) {
      if (!state.open || state.index !== index || !photo) return;
      announce();
      syncURL();
      // Neighbours of the neighbours' pages, so stepping across a page edge does not wait.
      state.seq.load(index - 1);
      state.seq.load(index + 1);
    });
  }

  function step(delta, fromSwipe) {
    if (!state.open) return false;
    var target = state.index + delta;
    if (target < 0 || target >= state.seq.total) { settle(0); return false; }
    state.placeholder = null;
    var slides = ui.slides;
    // Rotate the slides so the neighbour already loaded becomes the current one.
    if (delta === 1) slides.push(slides.shift());
    else if (delta === -1) slides.unshift(slides.pop());
    slides.forEach(function (s, i) { s.el.style.left = (i - 1) * 100 + "%"; });
    var animate = fromSwipe && !reduceMotion.matches;
    if (animate) {
      // The strip was dragged by `drag`; from there slide the rest of the way.
      ui.strip.style.transition = "none";
      ui.strip.style.transform = "translateX(" + (delta * ui.stage.clientWidth + state.dragX) + "px)";
      void ui.strip.offsetWidth;
      ui.strip.style.transition = "";
    }
    settle(0);
    show(target);
    return true;
  }

  function settle(x) {
    state.dragX = 0;
    ui.strip.style.transform = x ? "translateX(" + x + "px)" : "";
  }

  // ---- Open and close ----
  function open(seq, index, opener, placeholder) {
    if (state.leaving) {
      // Our own Back (from closing) has not landed yet: a push now would be undone by it.
      state.pendingOpen = [seq, index, opener, placeholder];
      return;
    }
    if (!ui) build();
    state.seq = seq;
    state.opener = opener;
    state.placeholder = placeholder || null;
    state.pushed = history.state && history.state.viewer === true;
    state.open = true;
    state.title = state.title || document.title;
    ui.slides.forEach(function (s) { s.url = null; s.wanted = null; s.natural = null; s.img.removeAttribute("src"); });
    ui.root.hidden = false;
    document.documentElement.classList.add("viewer-open");
    show(index);
    ui.root.focus();
  }

  /** `byUser`: the user closed it (Esc, button, swipe down): leave the pushed history entry.
      Otherwise Back already left it. */
  function close_(byUser) {
    if (!state.open) return;
    stopSlideshow();
    ui.slides.forEach(pauseMedia);
    state.open = false;
    ui.root.hidden = true;
    document.documentElement.classList.remove("viewer-open");
    document.title = state.title;
    var photo = state.seq.get(state.index);
    var onDetail = !!state.pagePhotoURL;
    if (byUser && state.pushed) {
      state.pushed = false;
      if (onDetail && photo && photo.url !== state.pagePhotoURL) {
        // The detail page shows another photo than the one the viewer ended on: go there.
        location.replace(photo.url);
        return;
      }
      state.leaving = true;
      history.back();
      // Should the popstate never come (no entry to go back to), do not block opening for good.
      setTimeout(landed, 1000);
    }
    state.pushed = false;
    var target = state.opener;
    if (!onDetail && photo) {
      var link = document.querySelector('.grid.items a[data-index="' + state.index + '"]');
      if (link && target && target.matches && target.matches(".grid.items a")) target = link;
    }
    if (target && target.focus) target.focus();
  }

  /** The Back that closing started has landed: open what was asked for meanwhile. */
  function landed() {
    if (!state.leaving) return;
    state.leaving = false;
    var pending = state.pendingOpen;
    state.pendingOpen = null;
    if (pending) open.apply(null, pending);
  }

  window.addEventListener("popstate", function (event) {
    if (state.leaving) { landed(); return; }
    if (state.open && !(event.state && event.state.viewer)) {
      state.pushed = false;
      close_(false);
    } else if (!state.open && event.state && event.state.viewer === true && state.seq && state.seq.feed === event.state.feed) {
      // Forward into a viewer entry: open it again.
      open(state.seq, event.state.index, state.opener, null);
    }
  });

  // ---- Zoom and pan ----
  function applyTransform(animate) {
    var img = current().img;
    img.style.transition = animate && !reduceMotion.matches ? "" : "none";
    img.style.transform = state.zoom === 1 ? "" : "translate(" + state.panX + "px," + state.panY + "px) scale(" + state.zoom + ")";
    ui.root.classList.toggle("viewer-zoomed", state.zoom > 1);
    ui.zoomOut.disabled = state.zoom <= 1;
    ui.zoomIn.disabled = state.zoom >= MAX_ZOOM;
  }

  function clampPan() {
    var img = current().img, b = box();
    var maxX = Math.max(0, (img.offsetWidth * state.zoom - b.w) / 2);
    var maxY = Math.max(0, (img.offsetHeight * state.zoom - b.h) / 2);
    state.panX = Math.max(-maxX, Math.min(maxX, state.panX));
    state.panY = Math.max(-maxY, Math.min(maxY, state.panY));
  }

  /** Zooms to `z` keeping the point (cx, cy) (relative to the stage's centre) still. */
  function zoomTo(z, cx, cy, animate) {
    if (isMovie(state.index)) return;
    z = Math.max(1, Math.min(MAX_ZOOM, z));
    cx = cx || 0; cy = cy || 0;
    var was = state.zoom;
    state.panX = cx - (z / was) * (cx - state.panX);
    state.panY = cy - (z / was) * (cy - state.panY);
    state.zoom = z;
    if (z === 1) { state.panX = state.panY = 0; }
    clampPan();
    applyTransform(animate);
    if (z > 1 && was === 1) {
      stopSlideshow();
      fill(current(), state.index); // the largest size
    }
  }

  function zoomBy(f, cx, cy) { zoomTo(state.zoom * f, cx, cy, true); }

  function resetZoom() {
    state.zoom = 1; state.panX = state.panY = 0;
    if (ui) ui.slides.forEach(function (s) { s.img.style.transform = ""; });
    if (ui) applyTransform(false);
  }

  function stagePoint(x, y) {
    var r = ui.stage.getBoundingClientRect();
    return { x: x - r.left - r.width / 2, y: y - r.top - r.height / 2 };
  }

  // ---- What the gestures (viewer-gestures.js) do here ----
  function bindGestures() {
    var start = null;
    function zoomChanged(was) {
      clampPan();
      applyTransform(false);
      if (was === 1 && state.zoom > 1) { stopSlideshow(); fill(current(), state.index); }
    }
    function release() {
      ui.strip.style.transition = "";
      ui.root.style.removeProperty("--fade");
    }
    window.galleryViewerGestures(ui.stage, {
      zoomed: function () { return state.zoom > 1; },
      pinchStart: function (mid) {
        if (isMovie(state.index)) { start = null; return; }
        start = { z: state.zoom, p: stagePoint(mid.x, mid.y), panX: state.panX, panY: state.panY };
      },
      pinch: function (scale, mid) {
        if (!start) return;
        // The image point under the first midpoint follows the moving midpoint.
        var was = state.zoom, z = Math.max(1, Math.min(MAX_ZOOM, start.z * scale)), p = stagePoint(mid.x, mid.y);
        state.zoom = z;
        state.panX = z === 1 ? 0 : p.x - (z / start.z) * (start.p.x - start.panX);
        state.panY = z === 1 ? 0 : p.y - (z / start.z) * (start.p.y - start.panY);
        zoomChanged(was);
      },
      panStart: function () { start = { panX: state.panX, panY: state.panY }; },
      pan: function (dx, dy) {
        state.panX = start.panX + dx;
        state.panY = start.panY + dy;
        zoomChanged(state.zoom);
      },
      drag: function (dx) {
        state.dragX = dx;
        ui.strip.style.transition = "none";
        ui.strip.style.transform = "translateX(" + dx + "px)";
      },
      dragEnd: function (dx) {
        release();
        var far = Math.abs(dx) > Math.min(80, ui.stage.clientWidth / 5);
        if (!(far && step(dx < 0 ? 1 : -1, true))) settle(0);
      },
      pull: function (dy) {
        ui.strip.style.transition = "none";
        ui.strip.style.transform = "translateY(" + dy + "px)";
        ui.root.style.setProperty("--fade", String(Math.max(0.3, 1 - dy / 400)));
      },
      pullEnd: function (dy) {
        release();
        settle(0);
        if (dy > 80) close_(true);
      },
      doubleTap: function (point) {
        var at = stagePoint(point.x, point.y);
        zoomTo(state.zoom > 1 ? 1 : 2.5, at.x, at.y, true);
      },
      wheel: function (delta, point) {
        var at = stagePoint(point.x, point.y);
        zoomTo(state.zoom * Math.exp(-delta * 0.002), at.x, at.y, false);
      }
    });
  }

  // ---- Slideshow ----
  function scheduleSlide() {
    clearTimeout(state.slideshow);
    state.slideshow = setTimeout(function () {
      if (!state.open) return;
      if (state.index + 1 < state.seq.total) step(1);
      else show(0);
      scheduleSlide();
    }, state.interval * 1000);
  }
  function toggleSlideshow() { if (state.slideshow) stopSlideshow(); else startSlideshow(); }
  function startSlideshow() {
    if (state.zoom > 1) zoomTo(1, 0, 0, false);
    state.slideshow = -1;
    ui.play.textContent = "❚❚";
    ui.play.setAttribute("aria-label", "Pause slideshow");
    ui.play.title = "Pause slideshow";
    ui.root.classList.add("viewer-playing");
    scheduleSlide();
  }
  function stopSlideshow() {
    if (!state.slideshow) return;
    clearTimeout(state.slideshow);
    state.slideshow = null;
    ui.play.textContent = "▶";
    ui.play.setAttribute("aria-label", "Start slideshow");
    ui.play.title = "Start slideshow";
    ui.root.classList.remove("viewer-playing");
  }

  // ---- Keyboard ----
  function focusables() {
    return Array.prototype.filter.call(ui.root.querySelectorAll("button, select"), function (b) {
      return !b.disabled && b.offsetParent !== null;
    });
  }

  function onDialogKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var onControl = e.target && /^(SELECT)$/.test(e.target.tagName);
    var handled = true;
    switch (e.key) {
      case "Escape": close_(true); break;
      case "ArrowRight": if (onControl) return; stopSlideshow(); if (state.zoom === 1) step(1); else { state.panX -= 80; clampPan(); applyTransform(true); } break;
      case "ArrowLeft": if (onControl) return; stopSlideshow(); if (state.zoom === 1) step(-1); else { state.panX += 80; clampPan(); applyTransform(true); } break;
      case "ArrowUp": if (onControl || state.zoom === 1) return; state.panY += 80; clampPan(); applyTransform(true); break;
      case "ArrowDown": if (onControl || state.zoom === 1) return; state.panY -= 80; clampPan(); applyTransform(true); break;
      case "+": case "=": zoomBy(1.6); break;
      case "-": case "_": zoomBy(1 / 1.6); break;
      case " ": case "Spacebar":
        if (e.target && e.target.tagName === "BUTTON") return; // activates the focused button
        toggleSlideshow(); break;
      case "Home": step(-state.index); break;
      case "End": step(state.seq.total - 1 - state.index); break;
      case "Tab": {
        // Focus stays in the dialog.
        var list = focusables();
        if (!list.length) break;
        var i = list.indexOf(document.activeElement);
        var next = e.shiftKey ? (i <= 0 ? list.length - 1 : i - 1) : (i < 0 || i === list.length - 1 ? 0 : i + 1);
        list[next].focus();
        break;
      }
      default: handled = false;
    }
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  }

  // Keys reaching the document while open (focus lost to the body) still drive the viewer,
  // and never the page's own arrow-key navigation underneath.
  document.addEventListener("keydown", function (e) {
    if (!state.open || ui.root.contains(e.target)) return;
    onDialogKey(e);
    if (!e.defaultPrevented && /^Arrow/.test(e.key)) e.preventDefault();
    e.stopImmediatePropagation();
  }, true);
  document.addEventListener("focusin", function (e) {
    if (state.open && !ui.root.contains(e.target)) ui.root.focus();
  });

  // ---- Wiring into the pages ----
  function sequenceFrom(node) {
    if (!node) return null;
    var feed = node.getAttribute("data-viewer-feed");
    var total = Number(node.getAttribute("data-viewer-total"));
    var size = Number(node.getAttribute("data-viewer-page-size"));
    if (!feed || !total || !size) return null;
    return new Sequence(feed, total, size);
  }

  function init() {
    var grid = document.querySelector(".grid.items[data-viewer-feed]");
    var gridSeq = sequenceFrom(grid);
    if (grid && gridSeq) {
      grid.addEventListener("click", function (e) {
        if (e.defaultPrevented || e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
        var link = e.target.closest && e.target.closest("a[data-index]");
        if (!link || !grid.contains(link)) return;
        var index = Number(link.getAttribute("data-index"));
        if (!(index >= 0)) return;
        e.preventDefault();
        var thumb = link.querySelector("img");
        open(gridSeq, index, link, thumb && (thumb.currentSrc || thumb.src));
      });
      // Warm the page of the grid's photos on the first sign of interest.
      var warm = function () { gridSeq.load(Number(grid.querySelector("a[data-index]").getAttribute("data-index"))); };
      grid.addEventListener("pointerover", warm, { once: true });
      grid.addEventListener("focusin", warm, { once: true });
    }

    var article = document.querySelector("article.photo[data-viewer-feed]");
    var detailSeq = sequenceFrom(article);
    var main = article && article.querySelector("img.main");
    if (article && detailSeq && main) {
      var index = Number(article.getAttribute("data-viewer-index"));
      state.pagePhotoURL = location.pathname;
      var full = el("button", "button quiet viewer-open-button", { type: "button" });
      full.textContent = "View full screen";
      // Focus returns to the button either way: the image itself is not focusable.
      var start = function () { open(detailSeq, index, full, main.currentSrc || main.src); };
      main.classList.add("viewer-opener");
      main.addEventListener("click", start);
      full.addEventListener("click", start);
      var actions = article.querySelector(".actions");
      if (actions) actions.insertBefore(full, actions.firstChild.nextSibling);
    }
    // A page loaded (reload, or restored) at a viewer's history entry is a plain page now:
    // the entry must not make a later close step back past it.
    if (history.state && history.state.viewer === true) history.replaceState(null, "", location.href);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();

  // For tests and debugging: the viewer's state, read-only.
  window.galleryViewer = {
    state: function () {
      return { open: state.open, index: state.index, zoom: state.zoom, slideshow: !!state.slideshow, interval: state.interval,
               total: state.seq ? state.seq.total : 0,
               slides: ui ? ui.slides.map(function (s) {
                 return { index: s.index, url: s.url, wanted: s.wanted || null,
                          natural: s.url && s.img.complete && s.img.getAttribute("src") === s.url ? s.img.naturalWidth : 0 };
               }) : [] };
    }
  };
})();
