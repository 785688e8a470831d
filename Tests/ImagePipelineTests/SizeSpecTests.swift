import Testing
import ImageCodec
@testable import ImagePipeline

@Suite struct SizeSpecTests {
    @Test func parsesFitAndCover() throws {
        #expect(SizeSpec(parsing: "480")?.mode == .fit(maxEdge: 480))
        #expect(SizeSpec(parsing: "240x240")?.mode == .cover(width: 240, height: 240))
        #expect(SizeSpec(parsing: "99999")?.mode == .fit(maxEdge: 99999))
        #expect(SizeSpec(parsing: "7x13")?.mode == .cover(width: 7, height: 13))
        #expect(try #require(SizeSpec(parsing: "480")).description == "480")
        #expect(try #require(SizeSpec(parsing: "240x160")).description == "240x160")
    }

    @Test(arguments: ["", "0", "0480", "00", "+480", "-480", " 480", "480 ", "4 80", "480x", "x480", "240x0240",
                      "240X240", "240x240x240", "100000", "240x100000", "12.5", "480px", "٤٨٠", "240×240", "0x0", "1e3"])
    func rejectsEverythingElse(_ text: String) {
        #expect(SizeSpec(parsing: text) == nil)
    }

    @Test func defaultAllowList() {
        let allowed = SizeSpec.defaultAllowed
        for edge in [120, 160, 240, 320, 360, 480, 640, 720, 960, 1080, 1280, 1440, 1920, 2560] {
            #expect(allowed.contains(SizeSpec(mode: .fit(maxEdge: edge))))
        }
        for side in [80, 120, 160, 240, 320, 360, 480, 640, 720] {
            #expect(allowed.contains(SizeSpec(mode: .cover(width: side, height: side))))
        }
        #expect(!allowed.contains(SizeSpec(mode: .fit(maxEdge: 481))))
        #expect(!allowed.contains(SizeSpec(mode: .fit(maxEdge: 2880))))
        #expect(!allowed.contains(SizeSpec(mode: .cover(width: 240, height: 160))))
    }

    @Test func renderRefusesSizesOutsideTheAllowList() throws {
        let dir = makeTempDir("size")
        var config = testConfiguration(cacheDir: dir)
        config.allowedSizes = [SizeSpec(mode: .fit(maxEdge: 480))]
        let pipeline = ImagePipeline(configuration: config)
        let url = "file://" + fixturesDir + "/jpeg/generated/orient_1.jpg"
        #expect(throws: PipelineError.sizeNotAllowed("240x240")) {
            try pipeline.render(url: url, spec: SizeSpec(mode: .cover(width: 240, height: 240)))
        }
        #expect(pipeline.metricsText().contains("pipeline_errors_total{kind=\"size_not_allowed\"} 1"))
    }
}
