#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Shared

/// openapi/openapi.json cannot drift from the code (DESIGN.md rule 20): its error codes are the
/// codes `FrontdoorError` can answer, and its paths are the routes nginx serves. A code or a route
/// added to one and not the other fails here. (What each endpoint answers is held to the document
/// by `OpenAPIFuzzTests`, through the real stack.)
@Suite struct OpenAPIDriftTests {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static func text(_ path: String) throws -> String {
        guard let bytes = FileIO.readFile(root + "/" + path, limit: 4 << 20) else {
            throw FrontdoorError.internal("cannot read \(path)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The document, through the strict parser: a duplicate member anywhere is refused too.
    static func document() throws -> JSONValue {
        try JSONParser.parse(Array(try text("openapi/openapi.json").utf8))
    }

    /// Every value an `error` member of an error body can take, wherever the document says it.
    static func errorCodesUsed(in value: JSONValue) -> Set<String> {
        var found = Set<String>()
        func walk(_ node: JSONValue) {
            if let members = node.objectValue {
                for (name, child) in members {
                    if name == "properties", let error = child["error"] {
                        for choice in error["enum"]?.arrayValue ?? [] { if let s = choice.stringValue { found.insert(s) } }
                        if let s = error["const"]?.stringValue { found.insert(s) }
                    }
                    walk(child)
                }
            } else if let items = node.arrayValue {
                items.forEach(walk)
            }
        }
        walk(value)
        return found
    }

    @Test func theDocumentsErrorCodesAreFrontdoorErrorsCodes() throws {
        let document = try Self.document()
        let listed = (document["components"]?["schemas"]?["ErrorCode"]?["enum"]?.arrayValue ?? []).compactMap(\.stringValue)
        let codes = Set(FrontdoorError.Code.allCases.map(\.rawValue))
        #expect(listed.count == Set(listed).count, "ErrorCode lists a code twice")
        #expect(Set(listed) == codes, "only in the document: \(Set(listed).subtracting(codes)); only in FrontdoorError: \(codes.subtracting(listed))")
        // Each code occurs where it can: every per-operation enum names known codes, and every
        // code is named by some operation (ErrorCode alone would not tell a client where).
        var used = Self.errorCodesUsed(in: document["paths"] ?? .null)
        used.formUnion(Self.errorCodesUsed(in: document["components"]?["responses"] ?? .null))
        for (name, schema) in document["components"]?["schemas"]?.objectValue ?? [] where name != "ErrorCode" && name != "Error" {
            used.formUnion(Self.errorCodesUsed(in: .object([("s", schema)])))
        }
        #expect(used.isSubset(of: codes), "unknown codes in the document: \(used.subtracting(codes))")
        #expect(codes.isSubset(of: used), "codes no operation names: \(codes.subtracting(used))")
    }

    /// The routes of nginx/frontdoor-endpoints.conf: each name of a `location ~ ^/auth/(...)$`
    /// alternation and each exact `location = /path` that is not `internal` (`exact`), and each
    /// `location ^~ /prefix/` of files served under it (`prefixes`).
    static func routes(_ conf: String) -> (exact: Set<String>, prefixes: Set<String>) {
        var exact = Set<String>(), prefixes = Set<String>()
        let lines = conf.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (i, line) in lines.enumerated() {
            let words = line.split(separator: " ").map(String.init)
            guard words.first == "location", words.count >= 3 else { continue }
            if words[1] == "~", let open = words[2].firstIndex(of: ">"), let close = words[2].lastIndex(of: ")") {
                let prefix = words[2].dropFirst().prefix { $0 != "(" }
                for name in words[2][words[2].index(after: open)..<close].split(separator: "|") {
                    exact.insert(String(prefix) + String(name))
                }
            } else if words[1] == "=" {
                let body = lines[(i + 1)...].prefix { !$0.hasPrefix("}") }
                if !body.contains(where: { $0.trimmingASCIISpaces() == "internal;" }) { exact.insert(words[2]) }
            } else if words[1] == "^~" {
                prefixes.insert(words[2])
            }
        }
        return (exact, prefixes)
    }

    @Test func theDocumentsPathsAreTheRoutesNginxServes() throws {
        let routes = Self.routes(try Self.text("nginx/frontdoor-endpoints.conf"))
        // The parse itself: the names every release has, the internal check left out.
        #expect(routes.exact.contains("/auth/signin-google") && routes.exact.contains("/auth/session"))
        #expect(!routes.exact.contains("/_frontdoor/session"))
        let paths = Set((try Self.document()["paths"]?.objectValue ?? []).map(\.0))
        // Every exact route is described; every described path is a route, or a file under a
        // prefix nginx serves; every such prefix has its files described.
        #expect(routes.exact.isSubset(of: paths), "routed but not described: \(routes.exact.subtracting(paths))")
        let unrouted = paths.filter { path in !routes.exact.contains(path) && !routes.prefixes.contains { path.hasPrefix($0) } }
        #expect(unrouted.isEmpty, "described but not routed: \(unrouted)")
        for prefix in routes.prefixes {
            #expect(paths.contains { $0.hasPrefix(prefix) && !routes.exact.contains($0) }, "nothing described under \(prefix)")
        }
        // Every program make install installs is routed (and so described).
        let makefile = try Self.text("Makefile")
        let line = makefile.split(separator: "\n").first { $0.hasPrefix("ENDPOINTS :=") } ?? ""
        let endpoints = line.split(separator: " ").dropFirst(2).map { "/auth/" + $0 }
        #expect(endpoints.count >= 12)
        #expect(Set(endpoints).isSubset(of: routes.exact), "installed but not routed: \(Set(endpoints).subtracting(routes.exact))")
    }

    @Test func theRouteParserReadsWhatNginxWouldRoute() {
        let conf = """
            location ~ ^/auth/(?<frontdoor_endpoint>a|b-c)$ {
                return 405;
            }
            location = /auth/d {
                alias /x;
            }
            location = /_frontdoor/e {
                internal;
            }
            location ^~ /auth/f/ {
                alias /y/;
            }
            location @named {
            }
            """
        #expect(Self.routes(conf).exact == ["/auth/a", "/auth/b-c", "/auth/d"])
        #expect(Self.routes(conf).prefixes == ["/auth/f/"])
    }
}
