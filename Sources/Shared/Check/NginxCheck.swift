#if canImport(Glibc)
import Glibc
#endif

/// `frontdoor-protect.conf` asks an internal location for every check: without it in the server,
/// nginx refuses the configuration at best, and at worst (a location of that path elsewhere, not
/// internal) the check is reachable from outside. When the snippet is installed, the files nginx
/// reads must define that location, `internal`; the snippet must carry the install's proof; and
/// no location the app's requests reach may lose the snippet's headers (`NginxLayoutCheck`).
enum NginxCheck {
    static let protectSnippet = "snippets/frontdoor-protect.conf"
    /// Where an operator's nginx files live under the nginx directory (Debian's layout).
    static let places = ["nginx.conf", "conf.d", "sites-enabled", "snippets"]

    /// Nothing when the protect snippet is not installed under `directory`; otherwise the findings.
    static func findings(directory: String) -> [SelfCheck.Finding] {
        guard let snippet = FileIO.readFile(directory + "/" + protectSnippet) else { return [] }
        let name = directory + "/" + protectSnippet
        let parsed = NginxConfig.parse(String(decoding: snippet, as: UTF8.self), file: name)
        guard let uri = authRequestURI(parsed) else {
            return [SelfCheck.Finding(ok: false, text: "nginx: \(name) has no auth_request line")]
        }
        return [internalLocation(uri, directory: directory), proof(parsed, directory: directory)]
            + layout(directory: directory)
    }

    /// The URI of the snippet's `auth_request` directive.
    static func authRequestURI(_ snippet: [NginxDirective]) -> String? {
        snippet.first { $0.name == "auth_request" && $0.args.count == 1 }?.args[0]
    }

    static func internalLocation(_ uri: String, directory: String) -> SelfCheck.Finding {
        var notInternal: String?
        for file in configFiles(directory) {
            guard let bytes = FileIO.readFile(file) else { continue }
            switch location(uri, in: NginxConfig.parse(String(decoding: bytes, as: UTF8.self), file: file)) {
            case .internal?:
                return SelfCheck.Finding(
                    ok: true, text: "nginx: \(protectSnippet) is installed and \(uri) is an internal location (\(file))")
            case .open?:
                notInternal = file
            case nil:
                continue
            }
        }
        if let notInternal {
            return SelfCheck.Finding(
                ok: false,
                text: "nginx: \(uri) in \(notInternal) is not `internal`: the session check would answer anyone")
        }
        return SelfCheck.Finding(
            ok: false,
            text: "nginx: \(protectSnippet) is installed but no file under \(directory) defines location = \(uri): "
                + "include snippets/frontdoor-endpoints.conf in the server of every protected location")
    }

    enum Location { case `internal`, open }

    /// Whether `list` has `location = uri { … }`, however deep, and whether its block says `internal;`.
    static func location(_ uri: String, in list: [NginxDirective]) -> Location? {
        for directive in list {
            if directive.name == "location", directive.args == ["=", uri], let block = directive.block {
                return block.contains { $0.name == "internal" && $0.args.isEmpty } ? .internal : .open
            }
            if let block = directive.block, let found = location(uri, in: block) { return found }
        }
        return nil
    }

    /// The snippet includes the proof file, which exists, is readable by nobody but its owner, and
    /// (when this user can read it) gives the same secret of 32 or more characters to both kinds
    /// of upstream.
    static func proof(_ snippet: [NginxDirective], directory: String) -> SelfCheck.Finding {
        let include = snippet.first { $0.name == "include" && $0.args.first?.hasSuffix("/frontdoor-proof.conf") == true }
        guard let written = include?.args.first else {
            return SelfCheck.Finding(
                ok: false,
                text: "nginx: \(protectSnippet) includes no frontdoor-proof.conf: the app cannot tell nginx's "
                    + "X-Frontdoor-Account from a client's; install this version's snippet (make install makes the proof)")
        }
        let path = NginxConfig.resolve(written, root: directory)
        var info = stat()
        guard stat(path, &info) == 0 else {
            return SelfCheck.Finding(ok: false, text: "nginx: the proof \(path) is missing: make install makes it")
        }
        guard info.st_mode & 0o077 == 0 else {
            return SelfCheck.Finding(
                ok: false,
                text: "nginx: the proof \(path) is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))): "
                    + "chmod 0600, owned by root")
        }
        guard let bytes = FileIO.readFile(path, limit: 64 << 10) else {
            return SelfCheck.Finding(ok: true, text: "nginx: the proof \(path) is in place, readable by its owner only")
        }
        let lines = NginxConfig.parse(String(decoding: bytes, as: UTF8.self), file: path)
        let proxied = lines.first { $0.name == "proxy_set_header" && $0.args.first == "X-Frontdoor-Proof" }?.args
        let fastcgi = lines.first { $0.name == "fastcgi_param" && $0.args.first == "HTTP_X_FRONTDOOR_PROOF" }?.args
        guard let proxied, let fastcgi, proxied.count == 2, fastcgi.count == 2, proxied[1] == fastcgi[1],
            proxied[1].utf8.count >= 32
        else {
            return SelfCheck.Finding(
                ok: false,
                text: "nginx: the proof \(path) must set X-Frontdoor-Proof and HTTP_X_FRONTDOOR_PROOF to one secret "
                    + "of 32 or more characters")
        }
        return SelfCheck.Finding(ok: true, text: "nginx: the proof \(path) is in place, readable by its owner only")
    }

    /// The layout findings, from nginx.conf when there is one (it includes the rest), else from
    /// conf.d and sites-enabled.
    static func layout(directory: String) -> [SelfCheck.Finding] {
        let main = directory + "/nginx.conf"
        let roots = access(main, R_OK) == 0
            ? [main] : configFiles(directory).filter { !$0.hasPrefix(directory + "/snippets/") && $0 != main }
        let trees = roots.compactMap { NginxConfig.load($0, root: directory, keep: NginxLayoutCheck.isProtectSnippet) }
        let report = NginxLayoutCheck.report(trees)
        guard report.problems.isEmpty else {
            return report.problems.map { SelfCheck.Finding(ok: false, text: "nginx: " + $0) }
        }
        guard report.protected > 0 else { return [] }
        return [
            SelfCheck.Finding(
                ok: true,
                text: "nginx: \(report.protected) protected location\(report.protected == 1 ? "" : "s"), and every "
                    + "location their requests reach keeps the snippet's headers")
        ]
    }

    /// The files of `places` under `directory`, folders listed one level deep, in name order.
    static func configFiles(_ directory: String) -> [String] {
        var files: [String] = []
        for place in places {
            let path = directory + "/" + place
            guard let dir = opendir(path) else {
                files.append(path)
                continue
            }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if !name.hasPrefix(".") { names.append(name) }
            }
            closedir(dir)
            files += names.sorted().map { path + "/" + $0 }
        }
        return files
    }
}
