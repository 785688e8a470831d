/// Collects the descriptive metadata a container hands over while it walks its structure (XMP
/// packets, extended XMP chunks, IPTC-IIM) and turns it into one `ImageText` with the EXIF text
/// tags: XMP wins over IPTC, IPTC over EXIF, field by field. Bytes beyond `maxBytes` in total
/// are dropped as they arrive, so a file of a thousand XMP segments costs no more than one
/// large packet.
public struct EmbeddedMetadata: Sendable {
    /// Total bytes kept (main packet, extended chunks and IPTC together).
    public var maxBytes: Int
    private var xmp: [UInt8]?
    private var iptcResources: [UInt8] = []
    private var iim: [UInt8]?
    /// Extended XMP chunks by GUID: (full length, offset, data).
    private var extended: [String: [(total: Int, offset: Int, data: ArraySlice<UInt8>)]] = [:]
    private var kept = 0

    public init(maxBytes: Int = 8 << 20) {
        self.maxBytes = maxBytes
    }

    private mutating func admit(_ count: Int) -> Bool {
        guard count <= maxBytes - kept else { return false }
        kept += count
        return true
    }

    static let xmpMagic: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let extendedMagic: [UInt8] = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]

    /// A whole XMP packet (PNG iTXt, WebP `XMP `, TIFF tag 700, HEIF `mime` item, a sidecar).
    /// The first one is kept.
    public mutating func addXMP(_ packet: some Collection<UInt8>) {
        guard xmp == nil, admit(packet.count) else { return }
        xmp = Array(packet)
    }

    /// Raw IIM datasets (TIFF tag 33723). The first block is kept.
    public mutating func addIIM(_ data: some Collection<UInt8>) {
        guard iim == nil, admit(data.count) else { return }
        iim = Array(data)
    }

    /// A JPEG APP1 payload: the main XMP packet or an extended XMP chunk (32-byte GUID, full
    /// length, offset, data); other APP1 payloads (EXIF) are ignored.
    public mutating func addAPP1(_ payload: ArraySlice<UInt8>) {
        if payload.starts(with: Self.xmpMagic) {
            addXMP(payload.dropFirst(Self.xmpMagic.count))
        } else if payload.starts(with: Self.extendedMagic) {
            let p = payload.dropFirst(Self.extendedMagic.count)
            guard p.count > 40 else { return }
            let s = p.startIndex
            let guid = MetadataText.latin1(p[s..<(s + 32)])
            let total = p[(s + 32)..<(s + 36)].reduce(0) { $0 << 8 | Int($1) }
            let offset = p[(s + 36)..<(s + 40)].reduce(0) { $0 << 8 | Int($1) }
            let data = p.dropFirst(40)
            guard (extended[guid]?.count ?? 0) < 4096, admit(data.count) else { return }
            extended[guid, default: []].append((total, offset, data))
        }
    }

    /// A JPEG APP13 payload: `Photoshop 3.0\0` and part of an image resource block (a block
    /// may run over several segments, each with the prefix).
    public mutating func addAPP13(_ payload: ArraySlice<UInt8>) {
        guard payload.starts(with: IPTCReader.photoshopMagic) else { return }
        let body = payload.dropFirst(IPTCReader.photoshopMagic.count)
        guard admit(body.count) else { return }
        iptcResources += body
    }

    /// The extended packet with `guid`, joined from its chunks; nil unless they agree on its
    /// length, stay inside it and cover all of it.
    private func extendedPacket(_ guid: String) -> [UInt8]? {
        guard let chunks = extended[guid], let total = chunks.first?.total, total > 0, total <= maxBytes else { return nil }
        var out = [UInt8](repeating: 0, count: total)
        var covered = 0
        for c in chunks.sorted(by: { $0.offset < $1.offset }) {
            guard c.total == total, c.offset == covered, c.data.count <= total - c.offset else { return nil }
            out.replaceSubrange(c.offset..<(c.offset + c.data.count), with: c.data)
            covered += c.data.count
        }
        return covered == total ? out : nil
    }

    /// The merged text: XMP (with its extended packet), then IPTC, then `exif`.
    public func text(exif: ImageText = ImageText(), limits: XMLLimits = XMLLimits()) -> ImageText {
        var result = ImageText()
        if let xmp {
            let main = XMPReader.text(xmp, limits: limits)
            result = main.text
            if let guid = main.extendedGUID, let packet = extendedPacket(guid) {
                result = result.filling(from: XMPReader.text(packet, limits: limits).text)
            }
        }
        if let iim = iim ?? IPTCReader.iimData(resources: iptcResources[...]).map(Array.init) {
            result = result.filling(from: IPTCReader.read(iim: iim[...]))
        }
        return result.filling(from: exif)
    }
}
