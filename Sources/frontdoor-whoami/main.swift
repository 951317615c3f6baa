#if canImport(Glibc)
import Glibc
#endif

// The example of a route of the app behind frontdoor (`make run`, the tests, `make bench`): a CGI
// program that answers which account nginx said is calling. It reads the one header nginx sets,
// HTTP_X_FRONTDOOR_ACCOUNT, and nothing else; it links nothing of frontdoor's, as the app would not.

/// An account id is base64url; anything else is answered as absent rather than echoed.
func accountId() -> String? {
    guard let raw = getenv("HTTP_X_FRONTDOOR_ACCOUNT") else { return nil }
    let value = String(cString: raw)
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
