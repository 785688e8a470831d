// The album's order and each photo's sizes for the full-screen viewer (viewer.js).
//
// The order comes page by page from /album/<id>/photos?page=N (the same photos as the grid's
// page N), so an album of thousands of photos costs one small request per page of photos
// shown, never one list of all. Each photo lists its fit sizes with their true pixel widths,
// each also as WebP when the gallery serves it; WebP is taken once the browser has shown it
// can decode it (a page image it chose from a <picture>, or the tiny probe below).
window.galleryViewerAlbum = (function () {
  "use strict";
  var webp = { supported: false };
  (function probeWebP() {
    // A page image already taken from a <source type="image/webp"> settles it at once.
    var imgs = document.querySelectorAll ? document.querySelectorAll("picture img") : [];
    for (var i = 0; i < imgs.length; i++) if (/\.webp\?/.test(imgs[i].currentSrc || "")) { webp.supported = true; return; }
    // Otherwise a 1×1 lossy WebP: the browser decodes it or fails.
    var probe = new Image();
    probe.onload = function () { webp.supported = probe.width === 1; };
    probe.src = "data:image/webp;base64,UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA";
  })();
  function chosen(candidate) { return (webp.supported && candidate.webp) || candidate.src; }
  function Sequence(feed, total, pageSize) {
    this.feed = feed;
    this.total = total;
    this.pageSize = Math.max(1, pageSize);
    this.photos = {};
    this.requests = {};
  }
  Sequence.prototype.get = function (index) { return this.photos[index] || null; };
  /** Resolves with the photo at `index` (null when it cannot be loaded). */
  Sequence.prototype.load = function (index) {
    var self = this;
    if (index < 0 || index >= this.total) return Promise.resolve(null);
    if (this.photos[index]) return Promise.resolve(this.photos[index]);
    var page = Math.floor(index / this.pageSize) + 1;
    if (!this.requests[page]) {
      this.requests[page] = fetch(this.feed + (this.feed.indexOf("?") < 0 ? "?" : "&") + "page=" + page, { credentials: "same-origin" })
        .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
        .then(function (data) {
          self.total = data.total;
          data.photos.forEach(function (p) { self.photos[p.index] = p; });
        })
        .catch(function () { delete self.requests[page]; });
    }
    return this.requests[page].then(function () { return self.photos[index] || null; });
  };

  /** CSS size the photo is shown at in a `box` (contain, never beyond 1 image px per CSS px). */
  function fittedSize(photo, natural, box) {
    var w = (photo && photo.width) || (natural && natural.w) || 0;
    var h = (photo && photo.height) || (natural && natural.h) || 0;
    if (!w || !h) return null;
    var s = Math.min(box.w / w, box.h / h, 1);
    return { w: Math.round(w * s), h: Math.round(h * s) };
  }
  /** The smallest candidate at least as wide as the shown size in device pixels, else the largest. */
  function pickSource(photo, box, zoomed) {
    var list = (photo && photo.srcset) || [];
    if (!list.length) return null;
    if (zoomed) return (webp.supported && photo.largeWebp) || photo.large || chosen(list[list.length - 1]);
    var dpr = window.devicePixelRatio || 1;
    var need;
    if (photo.width && photo.height) {
      need = Math.min(box.w / photo.width, box.h / photo.height) * photo.width * dpr;
    } else {
      need = Math.max(box.w, box.h) * dpr; // widths are nominal (the longest edge) here
    }
    for (var i = 0; i < list.length; i++) if (list[i].width >= need - 0.5) return chosen(list[i]);
    return chosen(list[list.length - 1]);
  }

  return { Sequence: Sequence, fittedSize: fittedSize, pickSource: pickSource, webp: webp };
})();
