import ImageCodec

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (docs/toolchain.md "Fuzzing").

enum XMPFuzzLimits {
    /// Tight enough that limit paths are reached by small inputs.
    static let xml = XMLLimits(maxBytes: 1 << 20, maxDepth: 16, maxElements: 2000, maxTextBytes: 4096, maxAttributes: 32)
}

/// Checks what every reader promises of its text: values cleaned (no control characters, no
/// white space at either end, non-empty, within the byte cap), lists without repeats, a
/// rating within -1...5.
func checkText(_ t: ImageText, _ source: String) {
    func value(_ s: String?) {
        guard let s else { return }
        precondition(!s.isEmpty, "\(source): empty value kept")
        precondition(!s.unicodeScalars.contains { $0.value < 0x20 }, "\(source): control character kept")
        precondition(s.first?.isWhitespace == false && s.last?.isWhitespace == false, "\(source): untrimmed value")
        precondition(s.utf8.count <= 16 << 10 || s.contains(", "), "\(source): value over the byte cap")
    }
    for s in [t.title, t.caption, t.label, t.copyright] { value(s) }
    for list in [t.keywords, t.people, t.places] {
        precondition(Set(list).count == list.count, "\(source): repeated list entry")
        list.forEach { value($0) }
    }
    if let r = t.rating { precondition((-1...5).contains(r), "\(source): rating \(r)") }
}

/// The input as an XMP packet (any throw must be an `ImageCodecError`), as IIM datasets and as
/// a Photoshop resource block, as EXIF (the text tags), and split into JPEG APP1/APP13
/// payloads (main and extended XMP, IPTC) joined by `EmbeddedMetadata`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        checkText(try XMPReader.read(bytes, limits: XMPFuzzLimits.xml).text, "XMP")
    } catch {
        // `read` throws ImageCodecError by its typed signature; nothing else can arrive here.
    }
    checkText(IPTCReader.read(iim: bytes[...]), "IIM")
    if let iim = IPTCReader.iimData(resources: bytes[...]) { checkText(IPTCReader.read(iim: iim), "8BIM") }
    checkText(ExifReader.parse(tiff: bytes[...]).text, "EXIF")
    // Segments start after 0xFF 0xE1 / 0xFF 0xED and a 2-byte length (ignored: the next
    // marker ends a segment), so a JPEG file is a good seed.
    var embedded = EmbeddedMetadata(maxBytes: 1 << 20)
    var start = 0, marker: UInt8 = 0xE1
    var i = 0
    while i + 3 < bytes.count {
        if bytes[i] == 0xFF, bytes[i + 1] == 0xE1 || bytes[i + 1] == 0xED {
            let segment = bytes[min(start, i)..<i]
            if marker == 0xE1 { embedded.addAPP1(segment) } else { embedded.addAPP13(segment) }
            marker = bytes[i + 1]
            start = i + 4
            i += 4
        } else {
            i += 1
        }
    }
    let last = bytes[min(start, bytes.count)...]
    if marker == 0xE1 { embedded.addAPP1(last) } else { embedded.addAPP13(last) }
    checkText(embedded.text(limits: XMPFuzzLimits.xml), "embedded")
    return 0
}
