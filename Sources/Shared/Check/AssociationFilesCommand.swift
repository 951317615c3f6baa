#if canImport(Glibc)
import Glibc
#endif

/// `frontdoor-check --print-association-files [--out DIR]`: the two files the RP ID's domain must
/// serve under `/.well-known/`, from the `passkeys` section (the same that gives the origins).
public enum AssociationFilesCommand {
    /// Both files on stdout, each after a `# /.well-known/<name>` line.
    public static func text(_ config: Config) -> String {
        guard let passkeys = config.passkeys else { return "# no passkeys section: no association files\n" }
        let files = PasskeyAssociationFiles.files(passkeys)
        guard !files.isEmpty else { return "# passkeys has no androidApps and no iosAppIds: no association files\n" }
        return files.map { "# /.well-known/\($0.name)\n\($0.json.serialized)\n" }.joined(separator: "\n")
    }

    /// Writes each file into `directory` (mode 0644: they are public) under a temporary name, then
    /// renames it, so nginx never serves half a file; removes a file the config no longer gives, so
    /// a platform taken out of the config is no longer vouched for. Returns one line per file.
    public static func write(_ config: Config, to directory: String) throws(FrontdoorError) -> [String] {
        let files = config.passkeys.map(PasskeyAssociationFiles.files) ?? []
        var lines: [String] = []
        for name in [PasskeyAssociationFiles.appleName, PasskeyAssociationFiles.androidName] {
            let path = directory + "/" + name
            guard let file = files.first(where: { $0.name == name }) else {
                if unlink(path) == 0 {
                    lines.append("removed \(path) (the config gives none)")
                } else if errno != ENOENT {
                    throw .internal("cannot remove \(path) (errno \(errno))")
                }
                continue
            }
            try Files.replace(path, with: Array((file.json.serialized + "\n").utf8), mode: 0o644)
            lines.append("wrote \(path)")
        }
        return lines
    }
}
