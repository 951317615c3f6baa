import Testing
@testable import Shared

@Suite struct OutboundURLTests {
    @Test(arguments: [
        ("https://x", OutboundURL.Kind.tls),
        ("HTTPS://Accounts.Google.com/o/oauth2?x=1", .tls),
        ("https://[2001:db8::1]:8443/", .tls),
        ("https://127.0.0.1/", .tls),
        ("http://127.0.0.1:8", .loopback),
        ("http://127.5.5.5", .loopback),
        ("http://127.0.0.255", .loopback),
        ("http://127.10.200.0", .loopback),
        ("http://127.0.0.1/@evil.com", .loopback),
        ("http://[::1]:80", .loopback),
        ("http://[0:0:0:0:0:0:0:1]/", .loopback),
        ("http://localhost", .loopback),
        ("http://LOCALHOST:8080/path?q=1#f", .loopback),
        ("http://user@127.0.0.1/", .loopback),
        ("smtps://mail.example.com:465", .tls),
        ("smtp://127.0.0.1:2525", .loopback),
        ("smtp://mail.example.com:587", .tls),
    ])
    func accepts(url: String, kind: OutboundURL.Kind) {
        #expect(OutboundURL.classify(url) == kind)
    }

    @Test(arguments: [
        "http://example.com", "http://127.0.0.1.evil.com", "http://localhost.evil.com", "http://localhost.",
        "http://0x7f000001", "http://2130706433", "http://127.1", "http://0177.0.0.1", "http://127.000.000.001",
        "http://user@evil.com@127.0.0.1", "http://127.0.0.1@evil.com", "http://evil.com\\@127.0.0.1",
        "http://@127.0.0.1", "http://[::ffff:127.0.0.1]", "http://[::1%25lo]", "http://[::1", "http://::1",
        "http://127.0.0.1:", "http://127.0.0.1:0", "http://127.0.0.1:65536", "http://127.0.0.1:80:80",
        "http:// 127.0.0.1", " http://127.0.0.1", "http://127.0.0.1\n", "http://", "http:127.0.0.1", "//127.0.0.1",
        "ftp://127.0.0.1/", "file:///etc/passwd", "gopher://localhost", "garbage", "", "https://", "https://:443",
        "https://exa mple.com", "https://ex\u{e4}mple.com",
        "http://127.0.0.256", "http://127..0.1", "http://127.0.0.1.", "http://.127.0.0.1", "http://127.0.0.01",
        "http://1270.0.0.1", "http://127.0.0.1.2",
    ])
    func refuses(url: String) {
        #expect(OutboundURL.classify(url) == nil)
    }

    @Test func plainSMTPToAnotherHostNeedsSTARTTLS() {
        #expect(OutboundURL.classify("smtp://mail.example.com", smtpStartTLSRequired: true) == .tls)
        #expect(OutboundURL.classify("smtp://mail.example.com", smtpStartTLSRequired: false) == nil)
        #expect(OutboundURL.classify("smtp://localhost", smtpStartTLSRequired: false) == .loopback)
        #expect(OutboundURL.classify("smtps://mail.example.com", smtpStartTLSRequired: false) == .tls)
    }

    @Test func hostLeavesOutUserinfoPortPathAndQuery() {
        #expect(OutboundURL.host(of: "https://key:secret@API.example.com:8443/v1/x?key=SECRET") == "api.example.com")
        #expect(OutboundURL.host(of: "http://[::1]:9/x") == "[::1]")
        #expect(OutboundURL.host(of: "nonsense") == nil)
    }
}
