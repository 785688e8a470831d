/// Our own compact ICC v4 Display P3 profile (492 bytes), embedded in renders kept in P3:
/// `desc`/`cprt` as one-record `mluc`, D50 `wtpt`, the P3 colorants Bradford-adapted to D50,
/// one shared sRGB-curve `para` (type 3) for all three TRCs, and `chad` (Bradford D65 → D50).
/// The profile ID is left zero, which ICC.1:2022 allows. Apple's "Display P3" profile has the
/// same colorants to within 1e-4.
enum DisplayP3Profile {
    /// The profile bytes (built once).
    static let bytes: [UInt8] = build()

    /// The colorant columns as written (s15Fixed16-rounded), used for the conversion into P3 so
    /// that converting and describing agree exactly.
    static let colorants: Matrix3 = {
        let m = Chromaticities.displayP3.d50Colorants() ?? .identity
        let q = m.values.map { fixed($0) }
        return Matrix3(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8])
    }()

    private static func fixed(_ v: Double) -> Double { nearest(v * 65536) / 65536 }

    private static func build() -> [UInt8] {
        var tags: [(String, [UInt8])] = []
        tags.append(("desc", mluc("Display P3")))
        tags.append(("cprt", mluc("CC0")))
        tags.append(("wtpt", xyz(XYZ.d50)))
        let c = colorants.values
        tags.append(("rXYZ", xyz(XYZ(c[0], c[3], c[6]))))
        tags.append(("gXYZ", xyz(XYZ(c[1], c[4], c[7]))))
        tags.append(("bXYZ", xyz(XYZ(c[2], c[5], c[8]))))
        var para = sig("para") + [0, 0, 0, 0] + u16(3) + [0, 0]
        for p in [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045] { para += s15(p) }
        let adapt = bradford(from: XYZ(chromaticity: 0.3127, 0.3290)) ?? .identity
        var chad = sig("sf32") + [0, 0, 0, 0]
        for v in adapt.values { chad += s15(v) }
        tags.append(("chad", chad))

        // Tag table: the three TRCs share one element.
        let tableCount = tags.count + 3
        var offset = 128 + 4 + 12 * tableCount
        var table = u32(tableCount)
        var data: [UInt8] = []
        func add(_ name: String, _ payload: [UInt8]) -> Int {
            let at = offset
            table += sig(name) + u32(at) + u32(payload.count)
            var padded = payload
            while padded.count % 4 != 0 { padded.append(0) }
            data += padded
            offset += padded.count
            return at
        }
        for (name, payload) in tags { _ = add(name, payload) }
        let trc = add("rTRC", para)
        for name in ["gTRC", "bTRC"] { table += sig(name) + u32(trc) + u32(para.count) }

        let size = 128 + table.count + data.count
        var header = u32(size) + [0, 0, 0, 0] + [4, 0x30, 0, 0] + sig("mntr") + sig("RGB ") + sig("XYZ ")
        header += u16(2026) + u16(1) + u16(1) + u16(0) + u16(0) + u16(0)
        header += sig("acsp") + [UInt8](repeating: 0, count: 24) + u32(0)
        header += s15(XYZ.d50.x) + s15(XYZ.d50.y) + s15(XYZ.d50.z)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return header + table + data
    }

    private static func mluc(_ text: String) -> [UInt8] {
        let units = Array(text.utf16)
        var out = sig("mluc") + [0, 0, 0, 0] + u32(1) + u32(12) + Array("enUS".utf8) + u32(units.count * 2) + u32(28)
        for u in units { out += u16(Int(u)) }
        return out
    }

    private static func xyz(_ v: XYZ) -> [UInt8] { sig("XYZ ") + [0, 0, 0, 0] + s15(v.x) + s15(v.y) + s15(v.z) }
    private static func sig(_ s: String) -> [UInt8] { Array(s.utf8) }
    private static func u16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
    private static func u32(_ v: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }
    private static func s15(_ v: Double) -> [UInt8] { u32(Int(Int32(truncatingIfNeeded: Int(nearest(v * 65536))))) }
}
