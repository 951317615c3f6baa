import DevSupport
import Shared
import Testing

/// `kit-return` (issue 45, item 2): what Apple's form_post and Google's redirect mode post comes
/// back to the page in its fragment, with a 303; anything else (no double-submitted cookie, not a
/// form, a token that is not one) goes back as `#return=error`, and nothing is stored.
@Suite struct KitReturnTests {
    static func post(_ h: Harness, _ form: String, cookie: String? = nil, contentType: String = "application/x-www-form-urlencoded")
        throws -> CGIAnswer
    {
        var extra: [String: String] = [:]
        if let cookie { extra["HTTP_COOKIE"] = cookie }
        return try h.run("kit-return", body: Array(form.utf8), contentType: contentType, extraEnvironment: extra)
    }

    @Test func applesFormPostGoesBackInTheFragment() throws {
        let h = try Harness()
        let answer = try Self.post(
            h, "code=c1&id_token=aaa.bbb.ccc&state=s%2B1&user=%7B%22name%22%3A%7B%22firstName%22%3A%22Ada+L%22%7D%7D")
        #expect(answer.status == 303, "\(answer.rawBody) \(answer.stderr)")
        #expect(answer.header("Location")
            == "/auth/kit/signin.html#return=apple&id_token=aaa.bbb.ccc&code=c1&state=s%2B1&user=%7B%22name%22%3A%7B%22firstName%22%3A%22Ada%20L%22%7D%7D",
            "\(answer.header("Location") ?? "")")
        #expect(answer.header("Cache-Control") == "no-store" && answer.header("Referrer-Policy") == "no-referrer")
        let cancelled = try Self.post(h, "error=user_cancelled_authorize&state=s1")
        #expect(cancelled.header("Location") == "/auth/kit/signin.html#return=apple&state=s1&error=user_cancelled_authorize")
    }

    @Test func googlesPostNeedsItsDoubleSubmittedCookie() throws {
        let h = try Harness()
        let ok = try Self.post(h, "credential=x.y.z&g_csrf_token=abc123", cookie: "other=1; g_csrf_token=abc123")
        #expect(ok.header("Location") == "/auth/kit/signin.html#return=google&credential=x.y.z", "\(ok.rawBody)")
        for cookie in [nil, "g_csrf_token=other", "g_csrf_token=", "x_g_csrf_token=abc123"] {
            let refused = try Self.post(h, "credential=x.y.z&g_csrf_token=abc123", cookie: cookie)
            #expect(refused.status == 303 && refused.header("Location") == "/auth/kit/signin.html#return=error",
                    "\(cookie ?? "no cookie"): \(refused.header("Location") ?? "")")
        }
    }

    @Test func anythingElseGoesBackAsAnError() throws {
        let h = try Harness()
        let error = "/auth/kit/signin.html#return=error"
        for (form, type) in [
            ("id_token=not%20a%20token&state=s", "application/x-www-form-urlencoded"),
            ("credential=a%ZZ", "application/x-www-form-urlencoded"),
            ("nothing=here", "application/x-www-form-urlencoded"),
            (#"{"id_token": "a.b.c"}"#, "application/json"),
            ("id_token=" + String(repeating: "a", count: 9000), "application/x-www-form-urlencoded"),
        ] {
            let answer = try Self.post(h, form, cookie: "g_csrf_token=t", contentType: type)
            #expect(answer.status == 303 && answer.header("Location") == error, "\(form.prefix(40)): \(answer.header("Location") ?? "")")
        }
        let get = try h.run("kit-return", body: [], method: "GET", contentType: nil)
        #expect(get.status == 405 && get.errorCode == "method_not_allowed")
    }
}
