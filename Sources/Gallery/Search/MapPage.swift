import Foundation
import FastCGI
import ImagePipeline

/// `/map` and `/album/<id>/map`: a Leaflet map (public/map.js, Leaflet and its marker-cluster
/// plugin from Debian, served under /static/) of where the view's photos were taken, and
/// `/map/points?bbox=w,s,e,n&zoom=z[&album=<id>]`, the positions inside a box as JSON.
///
/// Only where `gallery.json` says `"show_location": true` (`Catalog.showLocation`): elsewhere
/// there is no map link and every map route is 404. Points come from the index rows of the
/// view's folders; a box holding more than `maxPoints` photos is answered as clusters, one
/// per grid cell of the zoom (cells of about 64 screen pixels), counted in SQL over the same
/// folders; single photos are resolved to the view's items (anything else is dropped).
extension GalleryApp {
    /// Photos answered one by one at most; more are clustered by grid cell.
    static let maxMapPoints = 400

    struct MapPoints: Encodable {
        var points: [MapPoint]
        var clusters: [MapCluster]
    }

    struct MapPoint: Encodable {
        var lat: Double, lon: Double
        var url: String, thumb: String, title: String
    }

    struct MapCluster: Encodable {
        var lat: Double, lon: Double
        var count: Int
    }

    /// The folders (relative paths) of the albums of `catalog`'s view at and below `albumID`.
    func viewFolders(catalog: Catalog, below albumID: String) -> [String] {
        // A view holds exactly the albums reachable from its root: no walk needed for all of them
        // (10,000 albums at a million photos, on every search).
        if albumID == catalog.rootID { return catalog.albums.values.map(\.relativePath) }
        var out: [String] = []
        var stack = [albumID]
        var seen = Set<String>()
        while let id = stack.popLast() {
            guard seen.insert(id).inserted, let album = catalog.albums[id] else { continue }
            out.append(album.relativePath)
            stack.append(contentsOf: album.albumIDs)
        }
        return out
    }

    func mapPage(albumID: String?, catalog: Catalog) -> FastCGIResponse {
        guard catalog.showLocation else { return errors.response(404) }
        let album = albumID.flatMap { catalog.albums[$0] }
        if albumID != nil, album == nil { return errors.response(404) }
        var context = chrome()
        context["pageTitle"] = .string(album.map { "Map · \($0.title)" } ?? "Map")
        context["homeURL"] = .string(catalog.linkPrefix + "/")
        var crumbs: [TemplateValue] = []
        if let album, album.id != catalog.rootID { crumbs.append(["title": .string(album.title), "url": .string(albumURL(album.id, catalog: catalog))]) }
        crumbs.append(["title": "Map", "url": .null])
        context["breadcrumbs"] = .list(crumbs)
        context["hasCrumbs"] = true
        context["map"] = [
            "points": .string(catalog.linkPrefix + "/map/points" + (album.map { "?album=\($0.id)" } ?? "")),
            "tiles": .string(configuration.mapTiles),
            "attribution": .string(configuration.mapAttribution),
            "leafletCSS": .string(configuration.staticPrefix + "leaflet/leaflet.css"),
            "leafletJS": .string(configuration.staticPrefix + "leaflet/leaflet.js"),
            "clusterCSS": .string(configuration.staticPrefix + "leaflet/MarkerCluster.css"),
            "clusterDefaultCSS": .string(configuration.staticPrefix + "leaflet/MarkerCluster.Default.css"),
            "clusterJS": .string(configuration.staticPrefix + "leaflet/leaflet.markercluster.js"),
            "mapJS": .string(assets.url("map.js")),
        ]
        var response = HTTPResponses.html(200, templates.renderPage("map", context: .object(context)))
        // Tiles come from the operator's tile server: the page's policy lets images from it in.
        if let origin = Self.origin(of: configuration.mapTiles) {
            for i in response.headers.indices where response.headers[i].name == "Content-Security-Policy" {
                response.headers[i].value = response.headers[i].value.replacingOccurrences(of: "img-src 'self' data:",
                                                                                           with: "img-src 'self' data: \(origin)")
            }
        }
        return response
    }

    /// "https://tile.example.org" of a tile URL template; nil for a relative one (same origin).
    static func origin(of url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let host = rest.prefix { $0 != "/" }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:[]{}".contains($0) }) else { return nil }
        // A "{s}" subdomain placeholder becomes a wildcard.
        let pattern = host.replacingOccurrences(of: "{s}", with: "*")
        return String(url[..<scheme.upperBound]) + pattern
    }

    func mapPoints(box: MapBox, zoom: Int, albumID: String?, catalog: Catalog) -> FastCGIResponse {
        guard catalog.showLocation, let index else { return errors.response(404) }
        let top = albumID ?? catalog.rootID
        guard catalog.albums[top] != nil else { return errors.response(404) }
        let folders = viewFolders(catalog: catalog, below: top)
        guard let answer = index.positions(in: box, folders: folders, limit: Self.maxMapPoints, zoom: zoom) else {
            return errors.response(503)
        }
        var result = MapPoints(points: [], clusters: [])
        let found = answer.points.compactMap { position in catalog.item(relativePath: position.relativePath).map { (position, $0) } }
        let factsByID = photoFacts(of: found.map(\.1))
        for (position, item) in found {
            let facts = factsByID[item.id]
            guard facts?.lookup != .failed else { continue }
            result.points.append(MapPoint(lat: position.latitude, lon: position.longitude, url: catalog.linkPrefix + "/photo/\(item.id)",
                                          thumb: ImageLinks.url(id: item.id, spec: ImageLinks.coverSpec(scale: 1), version: facts?.version,
                                                                prefix: catalog.linkPrefix),
                                          title: item.title))
        }
        result.clusters = answer.clusters.map { MapCluster(lat: $0.latitude, lon: $0.longitude, count: $0.count) }
        return jsonResponse(result)
    }
}

/// Positions the index holds inside a box: each photo when few, else clusters per grid cell.
public struct IndexedPositions: Sendable {
    public struct Point: Sendable { public var relativePath: String; public var latitude: Double; public var longitude: Double }
    public struct Cluster: Sendable { public var latitude: Double; public var longitude: Double; public var count: Int }
    public var points: [Point] = []
    public var clusters: [Cluster] = []
}

extension LibraryIndex {
    /// The photos of `folders` whose position lies in `box`: one by one when at most `limit`,
    /// else grouped in square cells of 90 / 2^zoom degrees (a quarter of a 256 px tile, about
    /// 64 screen pixels), the mean position and count of each. Up to `maxCellZoom` the cells
    /// come from `map_cells` (kept per album by triggers), so the whole world is a sum over a
    /// few rows per album instead of a pass over every placed photo; a cell that crosses the
    /// box's edge is counted whole. nil when the index failed.
    public func positions(in box: MapBox, folders: [String], limit: Int, zoom: Int) -> IndexedPositions? {
        let zoom = min(max(zoom, 0), 30)
        let cell = 90.0 / Double(1 << zoom)
        // Many folders (the public view of a large library): walk the position index and test
        // the folder; a few (a share link): walk those folders' rows. Left to itself the planner
        // took the folders' rows for 10,000 folders, a million rows for a city at zoom 14.
        let folderTest = folders.count > 50 ? "+album" : "album"
        let inBox = """
            latitude BETWEEN ? AND ? AND longitude BETWEEN ? AND ? AND failure IS NULL \
            AND \(folderTest) IN (SELECT value FROM json_each(?))
            """
        let folderList = SQLValue.text(SearchSQL.jsonArray(folders))
        let values: [SQLValue] = [.real(box.south), .real(box.north), .real(box.west), .real(box.east), folderList]
        let cells = """
            zoom = ? AND cx BETWEEN ? AND ? AND cy BETWEEN ? AND ? AND album IN (SELECT value FROM json_each(?))
            """
        let cellValues: [SQLValue] = [.int(zoom), .int(Int(((box.west + 180) / cell).rounded(.down))), .int(Int(((box.east + 180) / cell).rounded(.down))),
                                      .int(Int(((box.south + 90) / cell).rounded(.down))), .int(Int(((box.north + 90) / cell).rounded(.down))), folderList]
        let useCells = zoom <= Self.maxCellZoom
        return read { db throws(SQLiteError) -> IndexedPositions in
            var out = IndexedPositions()
            let inside = useCells ? try db.scalar("SELECT coalesce(sum(n), 0) FROM map_cells WHERE \(cells)", cellValues) ?? 0
                                  : try db.scalar("SELECT count(*) FROM (SELECT 1 FROM photos WHERE \(inBox) LIMIT \(limit + 1))", values) ?? 0
            if inside <= limit {
                try db.run("SELECT path, latitude, longitude FROM photos WHERE \(inBox) ORDER BY date_taken DESC LIMIT \(limit)", values) { row in
                    out.points.append(.init(relativePath: row.text(0) ?? "", latitude: row.double(1) ?? 0, longitude: row.double(2) ?? 0))
                }
                return out
            }
            var singles: [(album: String, cx: Int, cy: Int)] = []
            let grouped = useCells
                ? "SELECT sum(lat) / sum(n), sum(lon) / sum(n), sum(n), min(album), cx, cy FROM map_cells WHERE \(cells) GROUP BY cx, cy"
                : """
                  SELECT avg(latitude), avg(longitude), count(*), min(album), CAST((longitude + 180) / ? AS INTEGER) AS cx, \
                  CAST((latitude + 90) / ? AS INTEGER) AS cy FROM photos WHERE \(inBox) GROUP BY cx, cy
                  """
            try db.run(grouped, useCells ? cellValues : [.real(cell), .real(cell)] + values) { row in
                let count = row.int(2)
                if count == 1 {
                    singles.append((row.text(3) ?? "", row.int(4), row.int(5)))
                } else {
                    out.clusters.append(.init(latitude: row.double(0) ?? 0, longitude: row.double(1) ?? 0, count: count))
                }
            }
            // A cell of one photo is that photo: found in its album by the cell's own arithmetic.
            for single in singles {
                try db.run("""
                    SELECT path, latitude, longitude FROM photos WHERE album = ? AND latitude IS NOT NULL AND failure IS NULL \
                    AND CAST((longitude + 180) / ? AS INTEGER) = ? AND CAST((latitude + 90) / ? AS INTEGER) = ? LIMIT 1
                    """, [.text(single.album), .real(cell), .int(single.cx), .real(cell), .int(single.cy)]) { row in
                    out.points.append(.init(relativePath: row.text(0) ?? "", latitude: row.double(1) ?? 0, longitude: row.double(2) ?? 0))
                }
            }
            return out
        }
    }
}
