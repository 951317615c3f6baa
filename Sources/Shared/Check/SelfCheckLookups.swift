import CCurl
import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// How the release binaries reach the outside (docs/installing.md): they are static, glibc and
/// libcurl inside, so the box needs no libcurl. Their glibc has the `files` and `dns` sources of
/// name lookups built in; any other source the box's nsswitch.conf names for `hosts` (`resolve`,
/// `mdns4_minimal`, ...) is loaded from the box's own glibc, which must then be the version the
/// programs were built with. TLS peers are checked against the CA bundle libcurl was built to read.
extension SelfCheck {
    /// The sources of the `hosts:` line, without its `[…]` actions; nil when there is no such line.
    static func hostSources(nsswitch text: String) -> [String]? {
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.first == "hosts:" else { continue }
            var sources: [String] = []
            var inAction = false
            for field in fields.dropFirst() {
                if field.hasPrefix("#") { break }
                if field.hasPrefix("[") { inAction = true }
                if !inAction { sources.append(String(field)) }
                if field.hasSuffix("]") { inAction = false }
            }
            return sources
        }
        return nil
    }

    static func nameServiceFinding(built: String, box: String?, sources: [String]?) -> (ok: Bool, text: String) {
        // No nsswitch.conf (or no hosts line): glibc's default is `dns [!UNAVAIL=return] files`.
        let sources = sources ?? ["dns", "files"]
        let listed = "hosts: " + sources.joined(separator: " ")
        let loaded = sources.filter { $0 != "files" && $0 != "dns" }
        if loaded.isEmpty { return (true, "name lookups: \(listed), built into the programs (glibc \(built))") }
        let names = loaded.joined(separator: ", ")
        let version = box.map { $0.hasPrefix("glibc ") ? String($0.dropFirst(6)) : $0 }
        if version == built {
            return (true, "name lookups: \(listed); \(names) loaded from this box's glibc \(built), the version the programs were built with")
        }
        return (
            false,
            "name lookups: \(listed); \(names) would be loaded from this box's glibc \(version ?? "(unknown)") into programs "
                + "built with \(built): build the release on this Debian version, or leave only files and dns on that line")
    }

    /// The CA bundle compiled into libcurl (Debian's path), and whether it is there to read.
    static func caBundleFinding(path: String?, readable: (String) -> Bool) -> (ok: Bool, text: String) {
        guard let path else { return (false, "TLS: libcurl names no CA bundle") }
        if readable(path) { return (true, "TLS: peers are checked against \(path)") }
        return (
            false,
            "TLS: \(path) is missing: apt-get install ca-certificates (every https and smtp call fails until it is there)")
    }

    static func builtInCABundle() -> String? {
        guard let info = frontdoor_curl_version_info(), let path = info.pointee.cainfo else { return nil }
        return String(cString: path)
    }

    static func lookupFindings() -> [(ok: Bool, text: String)] {
        let nsswitch = FileIO.readFile("/etc/nsswitch.conf").flatMap { hostSources(nsswitch: String(decoding: $0, as: UTF8.self)) }
        return [
            nameServiceFinding(built: String(cString: gnu_get_libc_version()), box: boxGlibc(), sources: nsswitch),
            caBundleFinding(path: builtInCABundle()) { path in
                var info = stat()
                return stat(path, &info) == 0 && info.st_size > 0 && access(path, R_OK) == 0
            },
        ]
    }
}
