#if canImport(Glibc)
import Glibc
#endif
import Shared

/// What each libFuzzer target (`Fuzz/Sources/fuzz-*`, `make fuzz`) does with one input. Kept here
/// so the corpus and every past crash are replayed by the ordinary tests (`FuzzReplayTests`)
/// without the fuzzing build. Each function may refuse its input; it must never trap.
public enum FuzzTargets {
    public static let names = ["jws", "jwks", "cgi", "cbor", "events"]

    public static func run(_ name: String, _ input: [UInt8]) {
        switch name {
        case "jws": jws(input)
        case "jwks": jwks(input)
        case "cgi": cgi(input)
        case "cbor": cbor(input)
        case "events": events(input)
        default: break
        }
    }

    /// A fixed moment: claims checks must not depend on the wall clock while fuzzing.
    static let now: UnixTime = 1_800_000_000
    static let policy = ClaimsPolicy(
        issuers: ["https://accounts.google.com", "https://appleid.apple.com"],
        audiences: ["fuzz.apps.googleusercontent.com", "com.example.frontdoor"])

    /// The keys the `jws` seeds name (`fuzz-rsa`, `fuzz-ec`): public halves only, made once with openssl.
    static let keySet: JSONWebKeySet = (try? JSONWebKeySet.parse(fixedKeySet)) ?? JSONWebKeySet(keys: [])

    /// Apple's precheck, delete-account's fresh-token reading, compact JWS parsing, the signature
    /// layer against `keySet`, then the claims checks on its payload whatever the signature said (so
    /// the fuzzer reaches them without forging).
    public static func jws(_ input: [UInt8]) {
        let token = String(decoding: input, as: UTF8.self)
        _ = try? AppleToken.precheck(token, rawNonce: "fuzz", audiences: ["com.example.frontdoor"], now: now)
        // delete-account reads a fresh Apple token's subject before anything verifies it.
        _ = try? FreshAppleAuthorization.parse(
            .object([
                ("appleAuthorizationCode", .string("fuzz-code")), ("appleIdentityToken", .string(token)),
                ("appleRawNonce", .string("fuzz")),
            ]))
        guard let jws = try? CompactJWS.parse(token) else { return }
        _ = try? verifySignature(of: jws, with: keySet)
        guard let claims = try? JSONParser.parse(jws.payload) else { return }
        _ = try? TokenVerifier.checkClaims(claims, policy: policy, now: now)
    }

    /// A provider's key set document, then each key's use for both algorithms.
    public static func jwks(_ input: [UInt8]) {
        guard let set = try? JSONWebKeySet.parse(input) else { return }
        for key in set.keys {
            _ = key.allows(.rs256)
            _ = key.allows(.es256)
        }
    }

    /// A CGI request: `NAME=value` lines, an empty line, then the body, fed through a pipe as
    /// fcgiwrap would. Then the method/type/JSON checks, the fields endpoints read, and a JSON
    /// round trip that must give back the same value.
    public static func cgi(_ input: [UInt8]) {
        let (environment, optional, body) = splitRequest(input)
        if isNoBody(input) {
            // `session` reads no body: only the variables count.
            let request = CGIRequest.withoutBody(environment: environment)
            _ = request.bearerToken
            return
        }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        defer { close(fds[0]) }
        // A pipe holds 64 KiB; the fuzzer's inputs stay far below, and the rest would block us.
        let sent = Array(body.prefix(60_000))
        sent.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fds[1], raw.baseAddress! + done, raw.count - done)
                if n <= 0 { break }
                done += n
            }
        }
        close(fds[1])
        guard let request = try? CGIRequest.read(environment: environment, input: fds[0]) else { return }
        _ = request.bearerToken
        _ = request.hasJSONContentType
        guard let json = try? Endpoint.parseBody(request, optional: optional) else { return }
        _ = try? json.requiredString("idToken")
        _ = try? json.optionalString("rawNonce", maxBytes: 512)
        _ = try? json.optionalBool("acceptAsTyped")
        // signin-email's address check (typo suggestions included), verify-email's and
        // delete-account's members.
        if let email = try? json.optionalString("email", maxBytes: 320) {
            _ = EmailValidation.normalise(email, acceptAsTyped: (try? json.optionalBool("acceptAsTyped")) == true)
        }
        for name in ["action", "password", "ticket", "code", "appleAuthorizationCode", "appleIdentityToken"] {
            _ = try? json.optionalString(name, maxBytes: 16_384)
        }
        _ = try? FreshAppleAuthorization.parse(json)
        // Every sign-in's deviceName, account's name, sign-out's scope.
        _ = try? PersonText.deviceName(json)
        _ = try? PersonText.optional(json, "name", maxBytes: 256)
        _ = try? SignOut.scope(json)
        // The passkey finishes' credential, read both ways.
        if let credential = json["credential"] {
            _ = try? PasskeyCredentialJSON.registration(credential)
            _ = try? PasskeyCredentialJSON.assertion(credential)
        }
        let again = try? JSONParser.parse(json.serialized)
        precondition(again == json, "JSON did not survive its own writer")
    }

    /// Whether the variables say `FUZZ_NO_BODY=1`: the request is read as the session check reads it.
    static func isNoBody(_ input: [UInt8]) -> Bool {
        let marker = Array("FUZZ_NO_BODY=1\n".utf8)
        var start = 0
        while start < input.count {
            let end = input[start...].firstIndex(of: 0x0A) ?? input.count
            if end == start { return false }
            if Array(input[start..<min(end + 1, input.count)]) == marker { return true }
            start = end + 1
        }
        return false
    }

    /// The CGI variables, whether `FUZZ_OPTIONAL` was set (the body may be absent), and the body.
    static func splitRequest(_ input: [UInt8]) -> (CGIEnvironment, Bool, [UInt8]) {
        var environment = CGIEnvironment()
        var optional = false
        var start = 0
        while start < input.count {
            let end = input[start...].firstIndex(of: 0x0A) ?? input.count
            let line = String(decoding: input[start..<end], as: UTF8.self)
            start = end + 1
            if line.isEmpty { break }
            if let eq = line.firstIndex(of: "=") {
                let name = String(line[..<eq])
                if name == "FUZZ_OPTIONAL" { optional = true }
                environment[name] = String(line[line.index(after: eq)...])
            }
        }
        return (environment, optional, start < input.count ? Array(input[start...]) : [])
    }
}
