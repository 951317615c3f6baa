/// The list of common passwords `make deps` builds (scripts/password-list), where the tests and
/// `make run` find it: the programs they run are not installed beside `share/frontdoor/`.
public enum PasswordListFile {
    public static var built: String { PostgresServers.root + "/.build/passwords/current/common-passwords" }
    /// Its entries as text, one a line (the tests hold the Swift folding to the build's).
    public static var builtText: String { built + ".txt" }
}
