/// Where a protected location hands its request on by URI, which nginx then matches against the
/// server's locations afresh: `rewrite … last` (or with no flag), before the check has even run;
/// `try_files … /uri`, `error_page … /uri` and `mirror /uri`, after it. The location the URI lands in gets the
/// request on its own terms: unless it is protected too, a rewrite lets requests without a session
/// through, and the others hand the app the client's bearer token and headers. The check follows
/// a URI it can read (no variables, a rewrite without captures) through nginx's own choice of
/// location, and refuses one it cannot follow.
extension NginxLayoutCheck {
    /// What a location passes on by URI: the directive and the URI (nil: one that cannot be followed).
    struct Reroute {
        let directive: NginxDirective
        let uri: String?
        /// Before the check (a rewrite) or after it (try_files, error_page).
        let beforeCheck: Bool
    }

    /// The location's own re-routes, those inside its `if` blocks included (not its nested locations').
    static func reroutes(_ block: [NginxDirective]) -> [Reroute] {
        var out: [Reroute] = []
        for directive in block {
            switch directive.name {
            case "if": out += reroutes(directive.block ?? [])
            case "rewrite":
                guard directive.args.count >= 2 else { continue }
                let replacement = directive.args[1]
                let flag = directive.args.count >= 3 ? directive.args[2] : ""
                // break stays in the location; redirect, permanent and a URL go back to the client.
                guard flag == "last" || flag.isEmpty, !isExternal(replacement) else { continue }
                out.append(Reroute(directive: directive, uri: literalPath(replacement), beforeCheck: true))
            case "try_files", "error_page":
                guard let target = directive.args.last, target.hasPrefix("/") || target.hasPrefix("$") else { continue }
                out.append(Reroute(directive: directive, uri: literalPath(target), beforeCheck: false))
            case "mirror":
                // A copy of the request, the client's headers with it, to another URI after the
                // check (the precontent phase): that location must be protected too (T5-11).
                guard let target = directive.args.first, target != "off" else { continue }
                out.append(Reroute(directive: directive, uri: literalPath(target), beforeCheck: false))
            default: continue
            }
        }
        return out
    }

    /// A replacement nginx sends to the client as a redirect.
    static func isExternal(_ replacement: String) -> Bool {
        replacement.hasPrefix("http://") || replacement.hasPrefix("https://") || replacement.hasPrefix("$scheme")
    }

    /// The path of a URI without its query, when it holds no variable or capture.
    static func literalPath(_ uri: String) -> String? {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? uri
        guard path.hasPrefix("/"), !path.contains("$") else { return nil }
        return path
    }

    struct Unfollowable: Error {
        let reason: String
    }

    /// The locations nginx chooses for `uri` among `list`'s (ngx_http_core_find_location): an exact
    /// match; else the longest prefix, then its nested locations; then, unless that prefix is `^~`,
    /// the regex locations in order, the nested ones first. Outermost first; empty when none matches.
    static func choose(_ uri: String, in list: [NginxDirective]) throws(Unfollowable) -> [Location] {
        try find(uri, in: list).chain
    }

    private static func find(_ uri: String, in list: [NginxDirective]) throws(Unfollowable) -> (chain: [Location], final: Bool) {
        let here = list.compactMap(location).filter { $0.kind != .named }
        if let exact = here.first(where: { $0.kind == .exact && $0.uri == uri }) { return ([exact], true) }
        var found: [Location] = []
        var noRegex = false
        if let prefix = here.filter({ ($0.kind == .prefix || $0.kind == .caret) && uri.hasPrefix($0.uri) })
            .max(by: { $0.uri.utf8.count < $1.uri.utf8.count })
        {
            noRegex = prefix.kind == .caret
            let inner = try find(uri, in: prefix.directive.block ?? [])
            if inner.final { return ([prefix] + inner.chain, true) }
            found = [prefix] + inner.chain
        }
        if !noRegex {
            for candidate in here where candidate.kind == .regex {
                guard try matches(candidate, uri) else { continue }
                let inner = try find(uri, in: candidate.directive.block ?? [])
                return ([candidate] + inner.chain, true)
            }
        }
        return (found, false)
    }

    private static func matches(_ candidate: Location, _ uri: String) throws(Unfollowable) -> Bool {
        let caseless = candidate.directive.args.first == "~*" || candidate.directive.args.first?.hasPrefix("~*") == true
        do {
            var pattern = try Regex(candidate.uri)
            if caseless { pattern = pattern.ignoresCase() }
            return uri.firstMatch(of: pattern) != nil
        } catch {
            throw Unfollowable(reason: "\(candidate.label)'s regex cannot be read here")
        }
    }

    /// Each re-route of the protected `here` (or of a location inside the protected `guarded`) must
    /// land in a protected location; after the check, one that passes nothing upstream will do.
    static func checkReroutes(
        _ here: Location, under guarded: Location, server: [NginxDirective], report: inout Report
    ) {
        let whose = isProtected(here.directive) ? "the protected \(here.label)" : "\(here.label), inside the protected \(guarded.label),"
        for reroute in reroutes(here.directive.block ?? []) {
            let written = ([reroute.directive.name] + reroute.directive.args).joined(separator: " ")
            let what = "`\(written)` (\(reroute.directive.place)) in \(whose)"
            let fix = reroute.beforeCheck
                ? "use `rewrite … break`, or send it to a named location that includes frontdoor-protect.conf"
                : "send it to a named location that includes frontdoor-protect.conf"
            guard let uri = reroute.uri else {
                report.problems.append(
                    "\(what) hands the request on by a URI frontdoor-check cannot follow (it holds a variable or "
                        + "capture, so nginx chooses the location at request time)"
                        + (reroute.beforeCheck ? ", before the check has run" : "") + ": \(fix)")
                continue
            }
            let chain: [Location]
            do {
                chain = try choose(uri, in: server)
            } catch {
                report.problems.append("\(what) hands the request on to \(uri), and \(error.reason): \(fix)")
                continue
            }
            guard let landing = chain.last, !chain.contains(where: { isProtected($0.directive) }) else { continue }
            if reroute.beforeCheck {
                report.problems.append(
                    "\(what) sends the request to \(uri), which \(landing.label) serves without frontdoor-protect.conf, "
                        + "before the check has run: requests without a session get through; \(fix)")
            } else if passesUpstream(landing.directive.block ?? []) {
                report.problems.append(
                    "\(what) sends the request to \(uri), which \(landing.label) passes to its upstream without "
                        + "frontdoor-protect.conf: the app gets the client's bearer token and X-Frontdoor-Account; \(fix)")
            }
        }
    }
}
