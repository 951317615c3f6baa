/// `kit-return`: where the sign-in page comes back to from Apple's and Google's own pages when it
/// could not open them in a window (an app's web view, where `window.open` opens nothing: rule 21,
/// issue 45). Apple posts `id_token`, `code`, `state` and `user` (`response_mode=form_post`);
/// Google's redirect mode posts `credential` and `g_csrf_token`, the same value its script set as
/// a cookie on this site. Nothing is checked or kept here: the answer is a 303 back to the page
/// with the values in the fragment, which no server sees, and the page signs in with them as it
/// does after a window (the nonce and `state` it kept, the token checked by `signin-apple` or
/// `signin-google`). A post without Google's double-submitted cookie, or that is not one of
/// these, goes back as `#return=error`, so that a page nobody asked for signs nobody in.
public enum KitReturn {
    /// The page, as nginx serves it (`/auth/kit/`).
    static let page = "/auth/kit/signin.html"
    /// Each value's bound: a token is at most a few KB; Apple's `user` a few hundred bytes.
    static let valueBytes = 8 * 1024

    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        back(to: fragment(context.request, cookie: CGIEnvironment.variable("HTTP_COOKIE")))
    }

    /// The fragment's pairs for a post.
    static func fragment(_ request: CGIRequest, cookie: String?) -> [(String, String)] {
        let error = [("return", "error")]
        guard request.contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true,
            let form = FormBody(request.body), form.fields.allSatisfy({ $0.value.utf8.count <= valueBytes })
        else { return error }
        if let credential = form["credential"] {
            // Google's double-submit cookie (its redirect mode's CSRF check).
            guard let field = form["g_csrf_token"], !field.isEmpty, cookieValue(cookie, "g_csrf_token") == field,
                isTokenText(credential)
            else { return error }
            return [("return", "google"), ("credential", credential)]
        }
        if form["id_token"] != nil || form["error"] != nil {
            var pairs = [("return", "apple")]
            for name in ["id_token", "code", "state", "user", "error"] {
                if let value = form[name] { pairs.append((name, value)) }
            }
            if let token = form["id_token"], !isTokenText(token) { return error }
            return pairs
        }
        return error
    }

    static func back(to pairs: [(String, String)]) -> CGIResponse {
        var response = CGIResponse.empty(status: 303)
        let fragment = pairs.map { FormBody.encode($0.0) + "=" + FormBody.encode($0.1) }.joined(separator: "&")
        response.addHeader("Location", page + "#" + fragment)
        // The tokens are in the fragment: the page's address is never sent on as a referrer.
        response.addHeader("Referrer-Policy", "no-referrer")
        return response
    }

    /// A JWT's characters (base64url and dots), nothing a URL or a header would treat otherwise.
    static func isTokenText(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }

    /// A cookie's value in a `Cookie:` header (`a=1; b=2`).
    static func cookieValue(_ header: String?, _ name: String) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, pair[0].trimmingWhitespace() == name { return String(pair[1]).trimmingWhitespace() }
        }
        return nil
    }
}
