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
