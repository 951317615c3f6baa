#if canImport(Glibc)
import Glibc
#endif

// The example of a route of the app behind frontdoor (`make run`, the tests, `make bench`): a CGI
// program that answers which account nginx said is calling. It believes HTTP_X_FRONTDOOR_ACCOUNT
// only beside HTTP_X_FRONTDOOR_PROOF equal to the install's proof, which it reads from its own
// environment's FRONTDOOR_PROOF_FILE (set where the app is started, never by a request): a layout
// that loses frontdoor-protect.conf's parameters loses the proof with them. It links nothing of
// frontdoor's, as the app would not.

func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// The proof file's first line; nil when it is not set, unreadable, or too short to be a secret.
func expectedProof() -> [UInt8]? {
    guard let path = environment("FRONTDOOR_PROOF_FILE"), !path.isEmpty else { return nil }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 256)
    let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
    guard n > 0 else { return nil }
    let line = Array(bytes[0..<n].prefix { $0 != 0x0A && $0 != 0x0D })
    return line.count >= 32 ? line : nil
}

/// Equal in time that does not depend on where they differ.
func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in 0..<a.count { difference |= a[i] ^ b[i] }
    return difference == 0
}

/// An account id is base64url; anything else is answered as absent rather than echoed.
func accountId() -> String? {
    guard let expected = expectedProof(), let proof = environment("HTTP_X_FRONTDOOR_PROOF"),
        sameBytes(Array(proof.utf8), expected), let value = environment("HTTP_X_FRONTDOOR_ACCOUNT")
    else { return nil }
    let allowed = value.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x2D || byte == 0x5F
    }
    return !value.isEmpty && value.utf8.count <= 64 && allowed ? value : nil
}

/// fcgiwrap writes a request's whole body before it reads the answer: read it, unused.
func drainBody() {
    guard let text = getenv("CONTENT_LENGTH"), var left = Int(String(cString: text)), left > 0 else { return }
    var scratch = [UInt8](repeating: 0, count: 4096)
    while left > 0 {
        let n = scratch.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress!, min(left, $0.count)) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        left -= n
    }
}

drainBody()
let account = accountId().map { "\"\($0)\"" } ?? "null"
let answer = "Status: 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n\r\n{\"account\":\(account)}\n"
let bytes = Array(answer.utf8)
var offset = 0
while offset < bytes.count {
    let n = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
    if n < 0 && errno == EINTR { continue }
    if n <= 0 { break }
    offset += n
}
