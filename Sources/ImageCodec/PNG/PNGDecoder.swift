/// PNG decoding entry points (owned by the PNG work; placeholder until it lands).
enum PNGDecoder {
    static func probe(_ bytes: [UInt8], limits: DecodeLimits) throws -> ImageInfo {
        throw ImageCodecError(.unsupported, "PNG decoding is not built yet")
    }

    static func decode(_ bytes: [UInt8], reduction: Int, limits: DecodeLimits) throws -> DecodedImage {
        throw ImageCodecError(.unsupported, "PNG decoding is not built yet")
    }
}
