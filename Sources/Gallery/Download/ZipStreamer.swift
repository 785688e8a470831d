import ImagePipeline
#if canImport(Glibc)
import Glibc
#endif

/// CRC-32s of files already read for a download, by path, size, modification time (ns) and
/// inode, so a resumed download (a `Range` request) does not read again the files before its
/// range to write the central directory. Process-wide; bounded like the pipeline's memos.
final class ZipChecksums: Sendable {
    private let known = BoundedMap<String, UInt32>(limit: 100_000)

    static func key(path: String, _ st: stat) -> String {
        "\(path)|\(st.st_size)|\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)|\(st.st_ino)"
    }

    subscript(key: String) -> UInt32? { known[key] }

    func remember(_ crc: UInt32, for key: String) { known.set(crc, for: key) }
}

/// Writes any byte range of the archive `layout` describes, reading each file in fixed-size
/// pieces: memory stays at one buffer (`chunkBytes`) plus the per-entry CRC table, whatever
/// the album's size.
///
/// CRCs: an entry whose data is sent from its first byte gets its CRC-32 computed on the way.
/// A range that needs the CRC of an entry it does not send whole (its descriptor or its
/// central record lies in the range) takes it from `checksums`, else reads that file once
/// more without sending it. A file whose size is no longer the one in the layout stops the
/// stream: the client sees a short body (Content-Length tells it), never wrong bytes.
struct ZipStreamer {
    let layout: ZipLayout
    let checksums: ZipChecksums
    /// Bytes read from a file per `pread`. 256 KiB: large enough that system calls cost
    /// nothing next to the copy, small enough to stay in the L2 cache while the CRC runs.
    static let chunkBytes = 256 << 10

    enum Stop: Error, Equatable {
        /// The client (or nginx) closed the connection.
        case clientGone
        /// A file changed, vanished or read short since the layout was made.
        case fileChanged(String)
    }

    /// Sends bytes `range` of the archive through `send`.
    func write(_ range: Range<Int>, send: (UnsafeRawBufferPointer) -> Bool) throws(Stop) {
        guard !range.isEmpty else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ZipStreamer.chunkBytes, alignment: 64)
        defer { buffer.deallocate() }
        var crcs = [UInt32?](repeating: nil, count: layout.entries.count)
        let entries = layout.entries

        func emit(_ bytes: [UInt8], at partStart: Int) throws(Stop) {
            let from = max(range.lowerBound, partStart), to = min(range.upperBound, partStart + bytes.count)
            guard from < to else { return }
            let ok = bytes.withUnsafeBytes { raw in
                send(UnsafeRawBufferPointer(rebasing: raw[(from - partStart)..<(to - partStart)]))
            }
            if !ok { throw .clientGone }
        }

        func crc(_ i: Int) throws(Stop) -> UInt32 {
            if let known = crcs[i] { return known }
            let value = try readFile(i, sending: nil, buffer: buffer, send: send)
            crcs[i] = value
            return value
        }

        // The first entry whose parts reach into the range.
        var i = firstEntry(touching: range.lowerBound)
        while i < entries.count, layout.offsets[i] < range.upperBound {
            let entry = entries[i]
            var at = layout.offsets[i]
            try emit(layout.localHeader(i), at: at)
            at += ZipLayout.localHeaderLength(entry)
            let dataEnd = at + entry.size
            if dataEnd > range.lowerBound && at < range.upperBound {
                let from = max(0, range.lowerBound - at), to = min(entry.size, range.upperBound - at)
                // The CRC is needed when the range goes past this entry's data.
                let needCRC = range.upperBound > dataEnd
                if needCRC || from == 0 {
                    let value = try readFile(i, sending: from..<to, buffer: buffer, send: send, upTo: needCRC ? entry.size : to)
                    if to == entry.size { crcs[i] = value }
                } else {
                    _ = try readFile(i, sending: from..<to, buffer: buffer, send: send, upTo: to, startAt: from)
                }
            }
            at = dataEnd
            if at < range.upperBound && at + ZipLayout.descriptorLength(entry) > range.lowerBound {
                try emit(layout.descriptor(i, crc: try crc(i)), at: at)
            }
            i += 1
        }
        guard range.upperBound > layout.centralStart else { return }
        var at = layout.centralStart
        for j in entries.indices {
            let length = ZipLayout.centralLength(entries[j], offset: layout.offsets[j])
            if at + length > range.lowerBound {
                guard at < range.upperBound else { return }
                try emit(layout.central(j, crc: try crc(j)), at: at)
            }
            at += length
        }
        try emit(layout.end(), at: at)
    }

    /// Index of the entry whose local header, data or descriptor holds byte `offset` (the
    /// entry count when the offset lies in the central directory or after it).
    private func firstEntry(touching offset: Int) -> Int {
        var lo = 0, hi = layout.entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let next = mid + 1 < layout.offsets.count ? layout.offsets[mid + 1] : layout.centralStart
            if next <= offset { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Reads entry `i`'s file from `startAt` to `upTo`, sends the part inside `sending`, and
    /// returns the CRC-32 of what it read (meaningful when it read from 0 to the end, which
    /// is then also remembered in `checksums`). A CRC already in `checksums` spares the read
    /// outside `sending`.
    private func readFile(_ i: Int, sending: Range<Int>?, buffer: UnsafeMutableRawBufferPointer,
                          send: (UnsafeRawBufferPointer) -> Bool, upTo: Int? = nil, startAt: Int = 0) throws(Stop) -> UInt32 {
        let entry = layout.entries[i]
        guard let file = try? LibraryFile(path: entry.path, root: entry.root), file.size == entry.size else {
            throw .fileChanged(entry.path)
        }
        let fd = file.fd
        let st = file.status
        let key = ZipChecksums.key(path: entry.path, st)
        var start = startAt, end = upTo ?? entry.size
        let known = checksums[key]
        if let known {
            // Only the bytes to send need reading.
            guard let sending else { return known }
            start = sending.lowerBound
            end = sending.upperBound
        }
        _ = posix_fadvise(fd, off_t(start), off_t(end - start), POSIX_FADV_SEQUENTIAL)
        var crc = CRC32()
        var position = start
        while position < end {
            let want = min(ZipStreamer.chunkBytes, end - position)
            var got = 0
            while got < want {
                let n = pread(fd, buffer.baseAddress! + got, want - got, off_t(position + got))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw .fileChanged(entry.path) }
                got += n
            }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<want])
            if known == nil { crc.update(chunk) }
            if let sending {
                let from = max(sending.lowerBound, position), to = min(sending.upperBound, position + want)
                if from < to, !send(UnsafeRawBufferPointer(rebasing: chunk[(from - position)..<(to - position)])) {
                    throw .clientGone
                }
            }
            position += want
        }
        if let known { return known }
        if start == 0 && end == entry.size { checksums.remember(crc.value, for: key) }
        return crc.value
    }
}
