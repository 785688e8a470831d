import Foundation
import Testing
@testable import ImageCodec

/// The HEIF container without decoding any HEVC: item graph, grid layout, properties,
/// transforms, EXIF, memory estimates and hostile structures.
@Suite("HEIF container")
struct HEIFContainerTests {
    @Test("iPhone grid: displayed size after irot, 48 tiles, Display P3 ICC, EXIF date and camera, orientation up")
    func iPhoneProbe() throws {
        let info = try ImageCodec.probe(try HEIFFixtures.bytes("heif_other_arrow.heic"))
        #expect(info.format == .heif)
        #expect(info.width == 3024 && info.height == 4032)
        #expect(info.orientation == .up)
        #expect(info.tileCount == 48)
        #expect(info.sampling == ["4:2:0"] && info.bitDepth == 8 && info.colorSpace == "YCbCr" && info.components == 3)
        #expect(info.iccProfile?.count == 548)
        #expect(info.exif.make == "Apple" && info.exif.model == "iPhone 8 Plus")
        #expect(info.exif.dateTimeOriginal == "2018:07:31 14:52:07")
        #expect(!info.hasAlpha)
    }

    @Test("grid layout: 8 columns of 512 px tiles in dimg order, turned clockwise")
    func gridLayout() throws {
        let graph = try HEIFImageGraph(try HEIFContainer(try HEIFFixtures.bytes("heif_other_arrow.heic")), limits: .default)
        let p = graph.primary
        #expect(p.baseWidth == 4032 && p.baseHeight == 3024 && p.columns == 8 && p.tiles.count == 48)
        #expect(p.tiles[9].x == 512 && p.tiles[9].y == 512)
        #expect(p.transform.orientation == .rotatedClockwise)
        #expect(p.configuration.lengthSize == 4 && p.configuration.parameterSets.count >= 3)
    }

    @Test("probe facts of the synthetic files: alpha, monochrome, bit depth, 4:4:4")
    func probeFacts() throws {
        let rgba = try ImageCodec.probe(try HEIFFixtures.bytes("heif_RGBA_10__29x100.heif"))
        #expect(rgba.hasAlpha && rgba.components == 4 && rgba.bitDepth == 10 && rgba.width == 29 && rgba.height == 100)
        let gray = try ImageCodec.probe(try HEIFFixtures.bytes("heif_L_8__29x100.heif"))
        #expect(gray.colorSpace == "Gray" && gray.sampling == ["4:0:0"] && gray.components == 1 && gray.width == 29)
        let c444 = try ImageCodec.probe(try HEIFFixtures.bytes("heif_other_RGB_8_chroma444.heif"))
        #expect(c444.sampling == ["4:4:4"] && c444.width == 29 && c444.height == 100)
        let exif = try ImageCodec.probe(try HEIFFixtures.bytes("heif_other_L_exif_xmp_iptc.heic"))
        #expect(exif.exif.make == "SONY" && exif.exif.model == "ILCE-7SM3")
    }

    @Test("primary: pitm naming a thumbnail falls back to the first shown image, as libheif + pillow-heif do")
    func primaryFallback() throws {
        let graph = try HEIFImageGraph(try HEIFContainer(try HEIFFixtures.bytes("heif_other_invalid_id.heic")), limits: .default)
        #expect(graph.primaryID == 3)
        #expect(graph.primary.displayWidth == 564 && graph.primary.displayHeight == 870)
        let zpug = try HEIFImageGraph(try HEIFContainer(try HEIFFixtures.bytes("heif_zPug_3.heic")), limits: .default)
        #expect(zpug.primaryID == 6)
    }

    @Test("transforms: composed crop + orientation equals applying clap, irot, imir one by one")
    func transformComposition() throws {
        let w = 12, h = 8
        let cases: [[HEIFProperty]] = [
            [.irot(1)], [.irot(3)], [.imir(0)], [.imir(1)], [.irot(1), .imir(0)], [.imir(1), .irot(2)],
            [.clap(CleanAperture(widthN: 6, widthD: 1, heightN: 4, heightD: 1, horizOffN: 2, horizOffD: 1, vertOffN: -2, vertOffD: 2))],
            [.irot(1), .clap(CleanAperture(widthN: 5, widthD: 1, heightN: 7, heightD: 1, horizOffN: -1, horizOffD: 1, vertOffN: 1, vertOffD: 1)), .imir(1)],
        ]
        for props in cases {
            // Reference: an image of labels transformed step by step.
            var image = (0..<(w * h)).map { $0 }, iw = w, ih = h
            var t = HEIFTransform(width: w, height: h)
            for p in props {
                try t.apply(p)
                switch p {
                case .irot(let q):
                    for _ in 0..<q {  // anticlockwise: new(x, y) = old(iw - 1 - y, x)
                        var n = [Int](repeating: 0, count: image.count)
                        for y in 0..<iw { for x in 0..<ih { n[y * ih + x] = image[x * iw + (iw - 1 - y)] } }
                        image = n; swap(&iw, &ih)
                    }
                case .imir(let axis):
                    var n = image
                    for y in 0..<ih { for x in 0..<iw { n[y * iw + x] = axis == 0 ? image[(ih - 1 - y) * iw + x] : image[y * iw + iw - 1 - x] } }
                    image = n
                case .clap(let c):
                    let left = Int((2 * c.horizOffN * c.widthD + Int64(iw - 1) * c.horizOffD * c.widthD - (c.widthN - c.widthD) * c.horizOffD) / (2 * c.horizOffD * c.widthD))
                    let top = Int((2 * c.vertOffN * c.heightD + Int64(ih - 1) * c.vertOffD * c.heightD - (c.heightN - c.heightD) * c.vertOffD + c.vertOffD * c.heightD) / (2 * c.vertOffD * c.heightD))
                    let cw = Int(c.widthN / c.widthD), ch = Int(c.heightN / c.heightD)
                    var n: [Int] = []
                    for y in top..<(top + ch) { for x in left..<(left + cw) { n.append(image[y * iw + x]) } }
                    image = n; iw = cw; ih = ch
                default: break
                }
            }
            #expect(t.displayWidth == iw && t.displayHeight == ih, "\(props)")
            for y in 0..<ih {
                for x in 0..<iw {
                    let (sx, sy) = t.storedPoint(x, y)
                    #expect(image[y * iw + x] == (t.cropY + sy) * w + t.cropX + sx, "\(props) at \(x),\(y)")
                }
            }
        }
    }

    @Test("embedded thumbnails: the iPhone's 240x320 item (turned like the photo), none when the item is larger than the image")
    func thumbnails() throws {
        let arrow = try ImageCodec.probe(try HEIFFixtures.bytes("heif_other_arrow.heic"))
        #expect(arrow.embeddedThumbnails == [EmbeddedThumbnail(index: 0, width: 240, height: 320)])
        let invalid = try ImageCodec.probe(try HEIFFixtures.bytes("heif_other_invalid_id.heic"))
        #expect(invalid.embeddedThumbnails.isEmpty)
        let bytes = try HEIFFixtures.bytes("generated/with_thumbnail.heic")
        let info = try ImageCodec.probe(bytes)
        #expect(info.embeddedThumbnails == [EmbeddedThumbnail(index: 0, width: 48, height: 32)])
        if HEIFFixtures.dec265Available {
            let thumb = try HEIFDecoder.decodeThumbnail(bytes, index: 0, reduction: 1, limits: .default,
                                                        tileDecoder: HEIFFixtures.referenceTileDecoder)
            #expect(thumb.bitmap.width == 48 && thumb.bitmap.height == 32 && thumb.info.width == 48)
            let arrowThumb = try HEIFDecoder.decodeThumbnail(try HEIFFixtures.bytes("heif_other_arrow.heic"), index: 0, reduction: 1,
                                                             limits: .default, tileDecoder: HEIFFixtures.referenceTileDecoder)
            #expect(arrowThumb.bitmap.width == 240 && arrowThumb.bitmap.height == 320)
        }
        #expect(throws: ImageCodecError.self) { try ImageCodec.decodeThumbnail(bytes, EmbeddedThumbnail(index: 3, width: 1, height: 1)) }
    }

    @Test("memory estimate of a 480 px thumbnail of the 12 MP iPhone photo holds one tile, not the image")
    func memoryEstimate() throws {
        let bytes = try HEIFFixtures.bytes("heif_other_arrow.heic")
        let eighth = try ImageCodec.memoryEstimate(bytes, scale: .eighth)
        let full = try ImageCodec.memoryEstimate(bytes, scale: .full)
        print("HEIF memory estimate for heif_other_arrow.heic (3024x4032, 48 tiles of 512x512): 1/8 \(eighth) bytes, 8/8 \(full) bytes")
        #expect(eighth < 6 << 20)
        #expect(full >= 3024 * 4032 * 3)
        var tight = DecodeLimits.default
        tight.maxMemoryBytes = eighth - 1
        #expect(throws: ImageCodecError.self) { try ImageCodec.decode(bytes, scale: .eighth, limits: tight) }
    }

    @Test("every fixture marked 'error' and every hostile structure fails with a typed error, quickly",
          arguments: ["heif_corrupted_corrupted.heic", "heif_corrupted_corrupted.hif", "heif_corrupted_empty.heic",
                      "generated/hostile_grid_cycle.heic", "generated/hostile_iden_chain.heic", "generated/hostile_ispe_65535.heic",
                      "generated/hostile_grid_16641_tiles.heic", "generated/hostile_essential_unknown.heic",
                      "generated/hostile_iden_cycle.heic"])
    func hostileFiles(_ file: String) throws {
        let bytes = try HEIFFixtures.bytes(file)
        let start = Date()
        var failed = false
        do {
            _ = try HEIFDecoder.decode(bytes, reduction: 8, limits: .default, tileDecoder: HEIFFixtures.failingTileDecoder)
        } catch let e as ImageCodecError {
            failed = true
            print("HEIF \(file): \(e)")
        }
        #expect(failed)
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test("expected kinds: 65535x65535 ispe and 16641 tiles are over the limits, a cycle is corrupt, deep iden chains and unknown essential properties unsupported")
    func hostileKinds() throws {
        func kind(_ file: String) -> ImageCodecError.Kind? {
            do { _ = try ImageCodec.probe(try HEIFFixtures.bytes(file)); return nil } catch let e as ImageCodecError { return e.kind } catch { return nil }
        }
        #expect(kind("generated/hostile_ispe_65535.heic") == .limitExceeded)
        #expect(kind("generated/hostile_iden_cycle.heic") == .corrupt)
        #expect(kind("generated/hostile_grid_cycle.heic") == .unsupported)
        #expect(kind("generated/hostile_grid_16641_tiles.heic") == .limitExceeded)
        #expect(kind("generated/hostile_iden_chain.heic") == .unsupported)
        #expect(kind("generated/hostile_essential_unknown.heic") == .unsupported)
        #expect(kind("heif_corrupted_empty.heic") == .notAnImage)
    }

    @Test("box sizes: past the parent, overflowing 64-bit sizes and short headers are corrupt")
    func boxSizes() throws {
        let ftyp: [UInt8] = [0, 0, 0, 16] + Array("ftypheic".utf8) + [0, 0, 0, 0]
        let huge: [UInt8] = ftyp + [0, 0, 0, 1] + Array("meta".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0] + [UInt8](repeating: 0, count: 16)
        #expect(throws: ImageCodecError.self) { try HEIFContainer(huge) }
        let short: [UInt8] = ftyp + [0, 0, 0, 4] + Array("meta".utf8)
        #expect(throws: ImageCodecError.self) { try HEIFContainer(short) }
        // A 'meta' whose child claims more bytes than 'meta' has.
        let child: [UInt8] = [0, 0, 0, 0x40] + Array("hdlr".utf8)
        let meta: [UInt8] = [0, 0, 0, 20] + Array("meta".utf8) + [0, 0, 0, 0] + child
        #expect(throws: ImageCodecError.self) { try HEIFContainer(ftyp + meta) }
    }

    @Test("truncations and bit flips of a small file: a value or a typed error, never a trap")
    func mutations() throws {
        let original = try HEIFFixtures.bytes("heif_truncated_truncated.heic")
        var errors = 0, decoded = 0
        func run(_ bytes: [UInt8]) {
            do {
                _ = try ImageCodec.probe(bytes)
                _ = try HEIFDecoder.decode(bytes, reduction: 8, limits: .default, tileDecoder: HEIFFixtures.failingTileDecoder)
                decoded += 1
            } catch is ImageCodecError { errors += 1 } catch { Issue.record("untyped error \(error)") }
        }
        for cut in stride(from: 0, to: 700, by: 3) { run(Array(original.prefix(cut))) }
        var rng = SplitMix64(seed: 7)
        for _ in 0..<1500 {
            var b = original
            let at = Int(rng.next() % 640)
            b[at] ^= UInt8(truncatingIfNeeded: 1 << (rng.next() % 8))
            run(b)
        }
        print("HEIF mutations: \(errors) typed errors, \(decoded) decodes")
    }
}

extension HEIFFixtures {
    /// Stands in for the HEVC decoder in container tests: every tile fails as unsupported.
    static func failingTileDecoder(_ p: [[UInt8]], _ d: ArraySlice<UInt8>, _ l: Int, _ limits: DecodeLimits) throws -> HEVCPicture {
        throw ImageCodecError(.unsupported, "no HEVC decoder in this test")
    }
}
