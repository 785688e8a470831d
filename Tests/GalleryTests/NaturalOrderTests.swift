import Testing
@testable import Gallery

/// The in-place natural comparison orders ASCII names exactly as `NaturalKey` does, and the
/// sort that skips keys for names already in order gives the keys' order.
@Suite struct NaturalOrderTests {
    /// A name from a fixed-seed generator: letters of both cases, digit runs with leading
    /// zeros, separators, and sometimes nothing but digits.
    static func names(count: Int, seed: UInt64) -> [String] {
        var state = seed
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let alphabet = Array("aAbBzZ_-. 0123456789000".utf8)
        return (0..<count).map { _ in
            String(decoding: (0..<(1 + next(9))).map { _ in alphabet[next(alphabet.count)] }, as: UTF8.self)
        }
    }

    @Test func ordersAsNaturalKeys() {
        let names = Self.names(count: 400, seed: 7) + ["img2.jpg", "img10.jpg", "IMG_0001.JPG", "img_1.jpg", "a", "A", "a0", "a00", "a01", ""]
        for a in names {
            for b in names.prefix(120) {
                #expect(NaturalOrder.precedes(a, b) == NaturalKey(a).precedes(NaturalKey(b)), "\(a) / \(b)")
            }
        }
        #expect(NaturalOrder.precedes("é.jpg", "a.jpg") == nil)
    }

    @Test func sortingSkipsKeysOnlyWhenAlreadyInOrder() {
        for seed in 1...20 {
            let names = Array(Set(Self.names(count: 60, seed: UInt64(seed))))
            let byKeys = names.sorted { NaturalKey($0).precedes(NaturalKey($1)) }
            #expect(CatalogNaming.sortedByName(names, name: { $0 }) == byKeys)
            #expect(CatalogNaming.sortedByName(byKeys, name: { $0 }) == byKeys)
            #expect(CatalogNaming.sortedByName(names.sorted(), name: { $0 }) == byKeys)
        }
    }
}
