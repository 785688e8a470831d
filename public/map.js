// The photo map (/map, /album/<id>/map): Leaflet with its marker-cluster plugin, tiles from
// the URL the operator set, and positions from /map/points by the visible box. The server
// answers single photos (each a marker with a thumbnail linking to its page) or, for a box
// of many, clusters per grid cell with their counts; the plugin groups nearby markers further.
(function () {
  "use strict";
  function start() {
    var el = document.getElementById("map");
    if (!el || !window.L) return;
    var map = L.map(el, { worldCopyJump: false, minZoom: 1 }).setView([20, 0], 2);
    L.tileLayer(el.dataset.tiles, { attribution: escapeHTML(el.dataset.attribution), maxZoom: 19 }).addTo(map);
    var layer = L.markerClusterGroup({ showCoverageOnHover: false });
    map.addLayer(layer);
    var pending = null, fitted = false;

    function clusterIcon(count) {
      var size = count < 100 ? "small" : count < 1000 ? "medium" : "large";
      return L.divIcon({ html: "<div><span>" + count + "</span></div>", className: "marker-cluster marker-cluster-" + size,
                         iconSize: L.point(40, 40) });
    }

    function load() {
      var b = map.getBounds();
      var clamp = function (v, m) { return Math.max(-m, Math.min(m, v)); };
      var box = [clamp(b.getWest(), 180), clamp(b.getSouth(), 90), clamp(b.getEast(), 180), clamp(b.getNorth(), 90)]
        .map(function (v) { return v.toFixed(5); }).join(",");
      var url = el.dataset.points + (el.dataset.points.indexOf("?") < 0 ? "?" : "&") + "bbox=" + box + "&zoom=" + map.getZoom();
      if (pending) pending.abort();
      pending = new AbortController();
      fetch(url, { credentials: "same-origin", signal: pending.signal })
        .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
        .then(function (data) {
          layer.clearLayers();
          var all = [];
          data.points.forEach(function (p) {
            var m = L.marker([p.lat, p.lon], { title: p.title });
            var html = '<a class="map-popup" href="' + escapeHTML(p.url) + '"><img src="' + escapeHTML(p.thumb) + '" alt=""><span>' +
              escapeHTML(p.title) + "</span></a>";
            m.bindPopup(html);
            all.push(m);
          });
          data.clusters.forEach(function (c) {
            var m = L.marker([c.lat, c.lon], { icon: clusterIcon(c.count) });
            m.on("click", function () { map.setView([c.lat, c.lon], Math.min(map.getZoom() + 2, 19)); });
            all.push(m);
          });
          layer.addLayers(all);
          el.dataset.markers = String(all.length);
          if (!fitted && all.length) {
            fitted = true;
            var bounds = L.latLngBounds(all.map(function (m) { return m.getLatLng(); }));
            map.fitBounds(bounds.pad(0.2), { maxZoom: 12 });
          }
        })
        .catch(function () {});
    }

    function escapeHTML(s) {
      return String(s).replace(/[&<>"']/g, function (c) {
        return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
      });
    }

    map.on("moveend", load);
    load();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
