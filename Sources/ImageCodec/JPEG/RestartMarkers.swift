/// Restart-marker handling shared by the scan decoders (libjpeg `process_restart`,
/// `read_restart_marker`, `jpeg_resync_to_restart`).
extension BitReader {
    /// `readRestartMarker` on a copy, so callers' readers are never passed by reference.
    @inline(never) func afterRestartMarker(expected: Int) -> (BitReader, Bool) {
        var r = self
        let consumed = r.readRestartMarker(expected: expected)
        return (r, consumed)
    }

    /// libjpeg `next_marker` on the entropy data: skips to the next marker and sets `marker`
    /// (EOI at the end of the input).
    mutating func seekMarker() {
        while true {
            while pos < count && base[pos] != 0xFF { pos &+= 1 }
            while pos < count && base[pos] == 0xFF { pos &+= 1 }
            guard pos < count else {
                marker = 0xD9
                hitEndOfInput = true
                return
            }
            let c = base[pos]
            pos &+= 1
            if c != 0 {
                marker = c
                return
            }
        }
    }

    /// Drops the buffered bits and reads RST`expected`, resynchronising when it is missing or
    /// out of order. Returns true when a marker was consumed, which clears the "out of data"
    /// state; false leaves the marker for later (the next interval reads as empty).
    mutating func readRestartMarker(expected: Int) -> Bool {
        discardBits()
        if marker == 0 { seekMarker() }
        let want = 0xD0 + expected
        if Int(marker) == want {
            marker = 0
            return true
        }
        while true {
            let m = Int(marker)
            let action: Int
            if m < 0xC0 {
                action = 2
            } else if m < 0xD0 || m > 0xD7 {
                action = 3
            } else if m == 0xD0 + ((expected + 1) & 7) || m == 0xD0 + ((expected + 2) & 7) {
                action = 3
            } else if m == 0xD0 + ((expected + 7) & 7) || m == 0xD0 + ((expected + 6) & 7) {
                action = 2
            } else {
                action = 1
            }
            switch action {
            case 1:
                marker = 0
                return true
            case 2:
                marker = 0
                seekMarker()
            default:
                return false
            }
        }
    }
}

/// Counts MCUs between restart markers and tracks libjpeg's "insufficient data" state, which
/// stops decoding (the rest of the interval stays zero) once a scan ran out of real bits.
struct RestartState {
    let interval: Int
    var toGo: Int
    var nextIndex = 0
    /// No MCU is decoded while set; cleared when a restart marker is consumed.
    var outOfData = false
    /// Whether the premature-end warning was raised in this scan.
    var warned = false

    init(interval: Int) {
        self.interval = interval
        toGo = interval
    }

    /// Call before each MCU; returns true when a restart was processed (predictors reset).
    @inline(__always) mutating func beforeMCU(_ reader: inout BitReader) -> Bool {
        guard interval > 0 else { return false }
        if toGo == 0 {
            let (next, consumed) = reader.afterRestartMarker(expected: nextIndex)
            reader = next
            if consumed { outOfData = false }
            nextIndex = (nextIndex + 1) & 7
            toGo = interval
            toGo -= 1
            return true
        }
        toGo -= 1
        return false
    }

    /// Whether no later MCU of the scan can be decoded: out of data with no restart marker
    /// left to clear it. Lets multi-scan decoding skip the rest of a dead scan (a hostile
    /// file can declare many empty scans over a large image).
    @inline(__always) func isFinished(_ reader: BitReader) -> Bool {
        outOfData && (interval == 0 || reader.hitEndOfInput)
    }

    /// Call after each decoded MCU.
    @inline(__always) mutating func afterMCU(_ reader: BitReader, warnings: inout [String]) {
        if reader.ranOutOfData && !outOfData {
            outOfData = true
            if !warned {
                warned = true
                warnings.append("corrupt JPEG data: premature end of data segment")
            }
        }
    }
}
