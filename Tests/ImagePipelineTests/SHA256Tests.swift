import Foundation
import Testing
@testable import ImagePipeline

@Suite struct SHA256Tests {
    @Test func nistShortVectors() {
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test func oneMillionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hex(message) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Feeding the message in odd-sized pieces must not change the digest (block boundaries).
    @Test func incrementalUpdatesMatchOneShot() {
        let message = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let oneShot = SHA256.hash(message)
        for piece in [1, 3, 55, 56, 63, 64, 65, 127, 1000] {
            var h = SHA256()
            var i = 0
            while i < message.count {
                let end = min(message.count, i + piece)
                h.update(message[i..<end])
                i = end
            }
            #expect(h.finalize() == oneShot, "piece size \(piece)")
        }
        // Lengths around the padding boundary.
        for n in 54...66 {
            let m = [UInt8](repeating: 0x61, count: n)
            var h = SHA256()
            h.update(m[0..<(n / 2)])
            h.update(m[(n / 2)...])
            #expect(h.finalize() == SHA256.hash(m), "length \(n)")
        }
    }
}

extension SHA256Tests {
    /// Prints the hashing speed on a 20 MB buffer (no timing assertion: see the brief).
    @Test func hashesTwentyMegabytes() {
        let message = [UInt8](repeating: 0xA5, count: 20 << 20)
        let start = Date()
        let digest = SHA256.hash(message)
        let seconds = Date().timeIntervalSince(start)
        #expect(digest.count == 32)
        print(String(format: "SHA-256 of 20 MiB: %.1f ms (%.0f MB/s)", seconds * 1000, 20.97 / seconds))
    }
}
