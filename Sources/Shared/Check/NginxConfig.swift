#if canImport(Glibc)
import Glibc
#endif

/// One directive of nginx's configuration: its name, its arguments (quotes taken off), its block
/// when it has one, and where it was written.
struct NginxDirective: Sendable {
    let name: String
    let args: [String]
    var block: [NginxDirective]?
    let file: String
    let line: Int

    var place: String { "\(file):\(line)" }
}

/// nginx's configuration read as nginx reads it, for frontdoor-check: words, quoted strings,
/// comments, `${name}` inside a word, and `include` expanded in place.
enum NginxConfig {
    /// `text` as a list of directives. A stray `}` or a missing one ends the parse quietly: nginx
    /// itself refuses such a file, and `nginx -t` says where.
    static func parse(_ text: String, file: String) -> [NginxDirective] {
        var tokens = Tokens(Array(text.utf8))
        return directives(&tokens, file: file)
    }

    private static func directives(_ tokens: inout Tokens, file: String) -> [NginxDirective] {
        var out: [NginxDirective] = []
        var words: [String] = []
        var line = 0
        while let token = tokens.next() {
            switch token.kind {
            case .word:
                if words.isEmpty { line = token.line }
                words.append(token.text)
            case .semicolon:
                if let name = words.first {
                    out.append(NginxDirective(name: name, args: Array(words.dropFirst()), file: file, line: line))
                }
                words.removeAll()
            case .open:
                let block = directives(&tokens, file: file)
                if let name = words.first {
                    out.append(NginxDirective(name: name, args: Array(words.dropFirst()), block: block, file: file, line: line))
                }
                words.removeAll()
            case .close:
                return out
            }
        }
        return out
    }

    /// The file at `path` with every `include` replaced by what it includes (globs too), except
    /// the ones `keep` names, which stay as directives; an include that cannot be read stays as
    /// well. `root` is the nginx directory: relative paths are under it, and so are absolute ones
    /// under /etc/nginx when it is another folder (a staged tree).
    static func load(_ path: String, root: String, keep: (String) -> Bool) -> [NginxDirective]? {
        var seen: Set<String> = []
        return load(path, root: root, keep: keep, depth: 0, seen: &seen)
    }

    private static func load(
        _ path: String, root: String, keep: (String) -> Bool, depth: Int, seen: inout Set<String>
    ) -> [NginxDirective]? {
        guard depth < 10, !seen.contains(path), let bytes = FileIO.readFile(path, limit: 4 << 20) else { return nil }
        seen.insert(path)
        defer { seen.remove(path) }
        return expand(parse(String(decoding: bytes, as: UTF8.self), file: path), root: root, keep: keep, depth: depth, seen: &seen)
    }

    private static func expand(
        _ list: [NginxDirective], root: String, keep: (String) -> Bool, depth: Int, seen: inout Set<String>
    ) -> [NginxDirective] {
        var out: [NginxDirective] = []
        for var directive in list {
            if let block = directive.block {
                directive.block = expand(block, root: root, keep: keep, depth: depth, seen: &seen)
                out.append(directive)
                continue
            }
            guard directive.name == "include", directive.args.count == 1, !keep(directive.args[0]) else {
                out.append(directive)
                continue
            }
            let files = matches(resolve(directive.args[0], root: root))
            var included: [NginxDirective] = []
            var unread = false
            for file in files {
                if let loaded = load(file, root: root, keep: keep, depth: depth + 1, seen: &seen) {
                    included += loaded
                } else {
                    unread = true
                }
            }
            if unread { out.append(directive) }
            out += included
        }
        return out
    }

    static func resolve(_ path: String, root: String) -> String {
        let etc = "/etc/nginx"
        if path.hasPrefix("/") {
            return root != etc && path.hasPrefix(etc + "/") ? root + path.dropFirst(etc.count) : path
        }
        return root + "/" + path
    }

    static func isGlob(_ path: String) -> Bool { path.contains { "*?[".contains($0) } }

    /// The files a pattern names, in name order; a plain path as it is.
    static func matches(_ pattern: String) -> [String] {
        guard isGlob(pattern) else { return [pattern] }
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }
    }
}

/// nginx's words: `{`, `}` and `;` end one, white space separates them, `#` starts a comment to
/// the end of the line, and quotes (with backslash escapes) make one word of anything.
private struct Tokens {
    enum Kind { case word, semicolon, open, close }
    struct Token {
        let kind: Kind
        let text: String
        let line: Int
    }

    let bytes: [UInt8]
    var at = 0
    var line = 1

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> Token? {
        while at < bytes.count {
            let byte = bytes[at]
            switch byte {
            case 0x0A:
                line += 1
                at += 1
            case 0x20, 0x09, 0x0D:
                at += 1
            case UInt8(ascii: "#"):
                while at < bytes.count && bytes[at] != 0x0A { at += 1 }
            case UInt8(ascii: ";"):
                at += 1
                return Token(kind: .semicolon, text: ";", line: line)
            case UInt8(ascii: "{"):
                at += 1
                return Token(kind: .open, text: "{", line: line)
            case UInt8(ascii: "}"):
                at += 1
                return Token(kind: .close, text: "}", line: line)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                return quoted(byte)
            default:
                return word()
            }
        }
        return nil
    }

    private mutating func quoted(_ quote: UInt8) -> Token {
        let start = line
        var text: [UInt8] = []
        at += 1
        while at < bytes.count && bytes[at] != quote {
            if bytes[at] == UInt8(ascii: "\\") && at + 1 < bytes.count {
                at += 1
            }
            if bytes[at] == 0x0A { line += 1 }
            text.append(bytes[at])
            at += 1
        }
        at += 1
        return Token(kind: .word, text: String(decoding: text, as: UTF8.self), line: start)
    }

    private mutating func word() -> Token {
        var text: [UInt8] = []
        var inVariable = false
        while at < bytes.count {
            let byte = bytes[at]
            if inVariable {
                if byte == UInt8(ascii: "}") { inVariable = false }
            } else if byte == UInt8(ascii: "{") && text.last == UInt8(ascii: "$") {
                inVariable = true
            } else if [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ";"), UInt8(ascii: "{"), UInt8(ascii: "}")].contains(byte) {
                break
            }
            text.append(byte)
            at += 1
        }
        return Token(kind: .word, text: String(decoding: text, as: UTF8.self), line: line)
    }
}
