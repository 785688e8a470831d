import ImageCodec

extension ImageFuzzChecks {
    /// `MotionPhoto.embeddedMovie` on one input (a JPEG or HEIC still, maybe with a movie): it
    /// throws only `ImageCodecError`s, a range it answers lies inside the input and starts with
    /// an `ftyp` box, and the movie in it probes and decodes at 1/8 without trapping (the
    /// checks of `videoProblems`).
    public static func motionProblems(_ bytes: [UInt8], found: inout Int) -> [String] {
        var problems: [String] = []
        do {
            guard let (range, kind) = try MotionPhoto.embeddedMovie(source: MemoryByteSource(bytes), limits: videoLimits) else {
                return problems
            }
            found += 1
            guard range.lowerBound >= 0, range.upperBound <= bytes.count, range.count >= 8 else {
                return ["\(kind): range \(range) outside \(bytes.count) bytes"]
            }
            if !bytes[(range.lowerBound + 4)..<(range.lowerBound + 8)].elementsEqual("ftyp".utf8) {
                problems.append("\(kind): the movie does not start with ftyp")
            }
            var decoded = 0
            problems += videoProblems(Array(bytes[range]), decoded: &decoded).map { "\(kind): " + $0 }
        } catch is ImageCodecError {
        } catch {
            problems.append("threw \(error), not an ImageCodecError")
        }
        return problems
    }
}
