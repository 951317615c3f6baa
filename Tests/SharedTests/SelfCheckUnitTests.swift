import Testing
@testable import Shared

@Suite struct SelfCheckUnitTests {
    @Test func glibcMustBeTheVersionTheBinariesWereBuiltWith() {
        #expect(SelfCheck.glibcFinding(built: "2.36", box: "glibc 2.36").ok)
        let newer = SelfCheck.glibcFinding(built: "2.36", box: "glibc 2.41")
        #expect(!newer.ok)
        #expect(newer.text.contains("built with 2.36, this box has 2.41"))
        #expect(newer.text.contains("build the release on this Debian version"))
        #expect(!SelfCheck.glibcFinding(built: "2.36", box: nil).ok)
    }

    @Test func theBoxsGlibcComesFromGetconf() throws {
        let box = try #require(SelfCheck.boxGlibc())
        #expect(box.hasPrefix("glibc 2."))
    }
}
