/// Where nginx would pass a protected route's request to the app without frontdoor-protect.conf's
/// headers: its proxy_set_header and fastcgi_param lines (the proof, the account, the removed
/// bearer token) hold only in the location that includes it and in nested locations that set none
/// of their own, and a regex location can take a plain prefix location's requests altogether.
/// The app then sees no proof and believes nobody, but it does get the client's bearer token and
/// headers: each such place is a finding. So is a re-route by URI to such a place
/// (NginxReroutes.swift), and one the check cannot follow.
enum NginxLayoutCheck {
    /// Directives that replace, rather than add to, what a location inherits for its upstream.
    static let ownHeaders: Set = ["proxy_set_header", "fastcgi_param", "uwsgi_param", "scgi_param", "grpc_set_header"]
    static let passes: Set = ["proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass"]

    enum Kind { case exact, prefix, caret, regex, named }

    struct Location {
        let directive: NginxDirective
        let kind: Kind
        let uri: String
        var label: String {
            let written = directive.args.joined(separator: " ")
            return "location \(written) (\(directive.place))"
        }
    }

    /// What the check found: how many protected locations, and the problems, one sentence each.
    struct Report {
        var protected = 0
        var problems: [String] = []
    }

    static func isProtectSnippet(_ path: String) -> Bool {
        path == "frontdoor-protect.conf" || path.hasSuffix("/frontdoor-protect.conf")
    }

    /// `trees`: whole files, their includes expanded except the protect snippet's.
    static func report(_ trees: [[NginxDirective]]) -> Report {
        var named: [String: NginxDirective] = [:]
        for tree in trees { collectNamed(tree, into: &named) }
        var report = Report()
        for tree in trees { walk(tree, path: [], server: tree, named: named, report: &report) }
        return report
    }

    /// Modifiers, longest first: nginx also takes one joined to the URI (`location ^~/api/`).
    static let modifiers: [(String, Kind)] = [("^~", .caret), ("~*", .regex), ("~", .regex), ("=", .exact)]

    static func location(_ directive: NginxDirective) -> Location? {
        guard directive.name == "location", directive.block != nil, let first = directive.args.first else { return nil }
        if directive.args.count >= 2 {
            let kind = modifiers.first { $0.0 == first }?.1 ?? .prefix
            return Location(directive: directive, kind: kind, uri: kind == .prefix ? first : directive.args[1])
        }
        if first.hasPrefix("@") { return Location(directive: directive, kind: .named, uri: first) }
        if let (modifier, kind) = modifiers.first(where: { first.hasPrefix($0.0) }) {
            return Location(directive: directive, kind: kind, uri: String(first.dropFirst(modifier.count)))
        }
        return Location(directive: directive, kind: .prefix, uri: first)
    }

    static func isProtected(_ directive: NginxDirective) -> Bool {
        (directive.block ?? []).contains { $0.name == "include" && $0.args.count == 1 && isProtectSnippet($0.args[0]) }
    }

    private static func collectNamed(_ list: [NginxDirective], into named: inout [String: NginxDirective]) {
        for directive in list {
            if let found = location(directive), found.kind == .named { named[found.uri] = directive }
            if let block = directive.block { collectNamed(block, into: &named) }
        }
    }

    /// `path`: the locations this list sits in, outermost first; `server`: the locations a URI is
    /// matched against (the server block's, or a file's own when it has none).
    private static func walk(
        _ list: [NginxDirective], path: [Location], server: [NginxDirective], named: [String: NginxDirective],
        report: inout Report
    ) {
        for (index, directive) in list.enumerated() {
            guard let here = location(directive) else {
                if let block = directive.block {
                    walk(block, path: path, server: directive.name == "server" ? block : server, named: named, report: &report)
                }
                continue
            }
            let block = directive.block ?? []
            if isProtected(directive) {
                report.protected += 1
                checkOrder(here, path: path, earlier: list[..<index], report: &report)
            } else if let guarded = path.last(where: { isProtected($0.directive) }) {
                checkOwnHeaders(here, under: guarded, report: &report)
            }
            if let guarded = ([here] + path.reversed()).first(where: { isProtected($0.directive) }) {
                checkNamedTargets(block, from: here, under: guarded, named: named, report: &report)
                checkReroutes(here, under: guarded, server: server, report: &report)
            }
            walk(block, path: path + [here], server: server, named: named, report: &report)
        }
    }

    /// A plain prefix location, or one inside a plain prefix location, loses its requests to any
    /// regex location that matches them; and of regex locations the first that matches wins.
    private static func checkOrder(
        _ here: Location, path: [Location], earlier: ArraySlice<NginxDirective>, report: inout Report
    ) {
        let chain = path + [here]
        if let at = chain.firstIndex(where: { $0.kind == .prefix }) {
            let plain = chain[at]
            let which = at == path.count ? "" : " inside \(plain.label)"
            report.problems.append(
                "\(here.label) is protected\(which), but a regex location can take a plain prefix location's "
                    + "requests without the check: write it `location ^~ \(plain.uri)`")
        }
        if here.kind == .regex, let before = earlier.compactMap(location).first(where: { $0.kind == .regex }) {
            report.problems.append(
                "\(here.label) is protected, but \(before.label) comes first and wins every request both match: "
                    + "protect a prefix with `location ^~` instead")
        }
    }

    private static func checkOwnHeaders(_ here: Location, under guarded: Location, report: inout Report) {
        let block = here.directive.block ?? []
        if let own = block.first(where: { ownHeaders.contains($0.name) }) {
            report.problems.append(
                "\(here.label), inside the protected \(guarded.label), sets its own \(own.name) (\(own.place)) without "
                    + "including frontdoor-protect.conf: its upstream gets the client's X-Frontdoor-Account and "
                    + "bearer token, and no proof; include the snippet there too")
        } else if let unread = block.first(where: { $0.name == "include" && !isProtectSnippet($0.args.first ?? "") }) {
            report.problems.append(
                "\(here.label), inside the protected \(guarded.label), includes \(unread.args.first ?? "?") "
                    + "(\(unread.place)), which cannot be read: it may set its own headers; include "
                    + "frontdoor-protect.conf there too")
        }
    }

    /// try_files and error_page hand a request to a named location, which inherits nothing of the
    /// location it came from.
    private static func checkNamedTargets(
        _ block: [NginxDirective], from here: Location, under guarded: Location, named: [String: NginxDirective],
        report: inout Report
    ) {
        for directive in block where directive.name == "try_files" || directive.name == "error_page" {
            guard let target = directive.args.last, target.hasPrefix("@"), !target.hasPrefix("@frontdoor_"),
                let found = named[target], !isProtected(found), passesUpstream(found.block ?? [])
            else { continue }
            let through = here.directive.place == guarded.directive.place ? "" : " (inside \(guarded.label))"
            report.problems.append(
                "location \(target) (\(found.place)) is reached by \(directive.name) from the protected "
                    + "\(here.label)\(through) and passes the request on without including frontdoor-protect.conf: "
                    + "include the snippet there too")
        }
    }

    static func passesUpstream(_ list: [NginxDirective]) -> Bool {
        list.contains { passes.contains($0.name) || passesUpstream($0.block ?? []) }
    }
}
