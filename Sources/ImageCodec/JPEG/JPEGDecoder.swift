/// JPEG decoding entry points (owned by the JPEG decoder work; placeholder until it lands).
enum JPEGDecoder {
    static func probe(_ bytes: [UInt8], limits: DecodeLimits) throws -> ImageInfo {
        throw ImageCodecError(.unsupported, "JPEG decoding is not built yet")
    }

    static func decode(_ bytes: [UInt8], scale: Int, limits: DecodeLimits) throws -> DecodedImage {
        throw ImageCodecError(.unsupported, "JPEG decoding is not built yet")
    }
}
