#if canImport(Glibc)
import Glibc
#endif

/// `frontdoor-protect.conf` asks an internal location for every check: without it in the server,
/// nginx refuses the configuration at best, and at worst (a location of that path elsewhere, not
/// internal) the check is reachable from outside. When the snippet is installed, the files nginx
/// reads must define that location, `internal`.
enum NginxCheck {
    static let protectSnippet = "snippets/frontdoor-protect.conf"
    /// Where an operator's nginx files live under the nginx directory (Debian's layout).
    static let places = ["nginx.conf", "conf.d", "sites-enabled", "snippets"]

    /// nil when the protect snippet is not installed under `directory`; otherwise the finding.
    static func finding(directory: String) -> SelfCheck.Finding? {
        guard let snippet = FileIO.readFile(directory + "/" + protectSnippet) else { return nil }
        let name = directory + "/" + protectSnippet
        guard let uri = authRequestURI(String(decoding: snippet, as: UTF8.self)) else {
            return SelfCheck.Finding(ok: false, text: "nginx: \(name) has no auth_request line")
        }
        var notInternal: String?
        for file in configFiles(directory) {
            guard let bytes = FileIO.readFile(file) else { continue }
            switch location(uri, in: String(decoding: bytes, as: UTF8.self)) {
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

    /// The URI of the snippet's `auth_request` directive.
    static func authRequestURI(_ text: String) -> String? {
        let words = tokens(text)
        guard let at = words.firstIndex(of: "auth_request"), at + 2 < words.count, words[at + 2] == ";" else {
            return nil
        }
        return words[at + 1]
    }

    enum Location { case `internal`, open }

    /// Whether `text` has `location = uri { … }`, and whether that block says `internal;`.
    static func location(_ uri: String, in text: String) -> Location? {
        let words = tokens(text)
        var i = 0
        while i + 3 < words.count {
            guard words[i] == "location", words[i + 1] == "=", words[i + 2] == uri, words[i + 3] == "{" else {
                i += 1
                continue
            }
            var depth = 1
            var j = i + 4
            var isInternal = false
            while j < words.count && depth > 0 {
                switch words[j] {
                case "{": depth += 1
                case "}": depth -= 1
                case "internal" where depth == 1 && j + 1 < words.count && words[j + 1] == ";": isInternal = true
                default: break
                }
                j += 1
            }
            return isInternal ? .internal : .open
        }
        return nil
    }

    /// nginx's configuration as words: comments dropped, `{`, `}` and `;` words of their own.
    /// (Quoted strings are not taken apart; the directives looked for have none.)
    static func tokens(_ text: String) -> [String] {
        var words: [String] = []
        var current: [UInt8] = []
        var inComment = false
        func flush() {
            if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
            current.removeAll()
        }
        for byte in text.utf8 {
            if inComment {
                if byte == 0x0A { inComment = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "#"):
                flush()
                inComment = true
            case 0x20, 0x09, 0x0A, 0x0D:
                flush()
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ";"):
                flush()
                words.append(String(UnicodeScalar(byte)))
            default:
                current.append(byte)
            }
        }
        flush()
        return words
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
