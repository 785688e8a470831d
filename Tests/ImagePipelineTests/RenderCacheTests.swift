import Testing
@testable import ImagePipeline

@Suite struct RenderCacheTests {
    private func image(_ size: Int) -> RenderedImage {
        RenderedImage(bytes: [UInt8](repeating: 1, count: size), contentType: "image/jpeg", width: 1, height: 1)
    }

    @Test func keepsTheBudgetAndDropsLeastRecentlyUsed() {
        let cache = RenderCache(capacity: 1000)
        cache.put("a", image(400))
        cache.put("b", image(400))
        #expect(cache.get("a") != nil)   // a is now the most recent
        cache.put("c", image(400))       // evicts b
        #expect(cache.get("b") == nil)
        #expect(cache.get("a") != nil)
        #expect(cache.get("c") != nil)
        #expect(cache.bytes == 800)
        cache.put("big", image(1001))
        #expect(cache.get("big") == nil, "larger than the whole budget is not kept")
        cache.put("a", image(100))
        #expect(cache.bytes == 500)
        #expect(cache.count == 2)
    }

    @Test func manyEntriesStayWithinBudget() {
        let cache = RenderCache(capacity: 10_000)
        for i in 0..<1000 { cache.put("k\(i)", image(97 + i % 13)) }
        #expect(cache.bytes <= 10_000)
        #expect(cache.get("k999") != nil)
        #expect(cache.get("k0") == nil)
    }
}
