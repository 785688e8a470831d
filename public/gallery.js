// Arrow keys step through an album on the detail page (links marked data-nav).
// The full-screen viewer (viewer.js) handles keys itself while open and marks them handled.
document.addEventListener("keydown", function (event) {
  if (event.defaultPrevented) return;
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  var target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  var which = { ArrowLeft: "prev", ArrowRight: "next", Escape: "up" }[event.key];
  if (!which) return;
  var link = document.querySelector('a[data-nav="' + which + '"]');
  if (link) {
    event.preventDefault();
    window.location.href = link.href;
  }
});

// A video the browser cannot decode (HEVC in Chromium or Firefox on Linux) keeps its poster and
// says so, with the download link, instead of a player that stays black. The page states which
// codec to test in data-codec (a MIME codecs string); no transcoding happens anywhere.
document.querySelectorAll("video[data-codec]").forEach(function (video) {
  var codec = video.getAttribute("data-codec");
  if (!codec || video.canPlayType('video/mp4; codecs="' + codec + '"') !== "") return;
  video.removeAttribute("controls");
  var note = video.parentNode.querySelector(".video-unsupported");
  if (note) note.hidden = false;
});

// A Live Photo: the still shows; pressing or hovering the LIVE button plays its movie over it
// (muted, as Photos does), and the still comes back when the movie ends or the press lets go.
document.querySelectorAll(".live-photo").forEach(function (stage) {
  var motion = stage.querySelector(".live-motion"), toggle = stage.querySelector(".live-toggle");
  if (!motion || !toggle) return;
  function play() {
    motion.hidden = false;
    motion.currentTime = 0;
    motion.play().catch(function () { motion.hidden = true; });
  }
  function stop() { motion.pause(); motion.hidden = true; }
  toggle.addEventListener("pointerenter", play);
  toggle.addEventListener("pointerdown", play);
  toggle.addEventListener("pointerleave", stop);
  toggle.addEventListener("click", function () { if (motion.hidden) play(); });
  motion.addEventListener("ended", stop);
});
