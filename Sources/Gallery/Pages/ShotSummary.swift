import Foundation
import ImagePipeline

/// How a detail page words a photo's EXIF: one compact line for the camera and exposure
/// ("iPhone 13 Pro · 26 mm f/1.5 · 1/120 s · ISO 64"), the lens, and (only where the gallery
/// allows it) the position with a map link.
enum ShotSummary {
    /// Camera name followed by focal length, aperture, exposure time and ISO, each part only
    /// when known; nil when nothing is. The focal length is the 35 mm equivalent when the file
    /// gives one (what photographers compare across cameras), else the lens's own.
    static func line(camera: String?, shot: ShotFacts) -> String? {
        var parts: [String] = []
        if let camera { parts.append(camera) }
        var optics: [String] = []
        if let mm = shot.focalLength35mm {
            optics.append("\(mm) mm")
        } else if let mm = shot.focalLength, mm > 0 {
            optics.append("\(decimal(mm)) mm")
        }
        if let f = shot.fNumber, f > 0 { optics.append("f/\(decimal(f))") }
        if !optics.isEmpty { parts.append(optics.joined(separator: " ")) }
        if let t = shot.exposureSeconds, let text = exposure(t) { parts.append(text) }
        if let iso = shot.iso { parts.append("ISO \(iso)") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// The lens model, with its maker in front unless the model already starts with it.
    static func lens(_ shot: ShotFacts) -> String? {
        GalleryApp.cameraName(make: shot.lensMake, model: shot.lensModel)
    }

    /// "1/120 s" below a third of a second (as cameras show it), else "0.5 s", "2 s", "30 s".
    static func exposure(_ seconds: Double) -> String? {
        guard seconds.isFinite, seconds > 0, seconds < 1_000_000 else { return nil }
        if seconds < 0.3 { return "1/\(Int((1 / seconds).rounded())) s" }
        return "\(decimal(seconds)) s"
    }

    /// "48.85837° N, 2.29448° E": five decimals are about a metre, as precise as a phone's fix.
    static func coordinates(_ location: PhotoLocation) -> String {
        let lat = String(format: "%.5f", abs(location.latitude)), lon = String(format: "%.5f", abs(location.longitude))
        return "\(lat)° \(location.latitude < 0 ? "S" : "N"), \(lon)° \(location.longitude < 0 ? "W" : "E")"
    }

    /// An OpenStreetMap page with a marker at the position.
    static func mapURL(_ location: PhotoLocation) -> String {
        let lat = String(format: "%.5f", location.latitude), lon = String(format: "%.5f", location.longitude)
        return "https://www.openstreetmap.org/?mlat=\(lat)&mlon=\(lon)#map=16/\(lat)/\(lon)"
    }

    /// One decimal at most, none when it is zero: 1.5 → "1.5", 8.0 → "8", 5.66 → "5.7".
    static func decimal(_ x: Double) -> String {
        let tenths = (x * 10).rounded()
        guard tenths.isFinite, abs(tenths) < 1e12 else { return String(x) }
        let n = Int(tenths)
        return n % 10 == 0 ? "\(n / 10)" : "\(n / 10).\(abs(n % 10))"
    }
}
