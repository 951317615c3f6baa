#if canImport(Glibc)
import Glibc
#endif

extension SelfCheck {
    /// Rule 19: the list of common passwords (found, whole, what it holds: no password is set
    /// without it), and with `passwords.rangeUrl` whether the range service answers a range over
    /// this host's routes (one fixed prefix, `00000`, that says nothing about anyone's password).
    func checkPasswords(_ config: Config, note: (Bool, String) -> Void) {
        let rules = config.passwords
        do throws(FrontdoorError) {
            let list = try PasswordPolicy.openList(rules)
            if let damage = list.damage() {
                note(false, "passwords: list \(list.path) is damaged (\(damage)): run make deps, then make install")
            } else {
                note(true, "passwords: list \(list.path), \(list.count) entries: \(list.description); at least \(rules.minLength) characters")
            }
        } catch {
            note(false, "passwords: \(error.detail ?? error.message) — registrations and resets answer 500 until it is there")
        }
        guard let url = rules.rangeUrl else { return }
        guard let parts = OutboundURL.parse(url) else {
            note(false, "passwords: cannot parse passwords.rangeUrl")
            return
        }
        let host = parts.host
        let port = parts.port ?? Self.defaultPort(parts.scheme)
        let timeout = max(rules.rangeTimeoutSeconds, min(timeoutSeconds, 5))
        let client = CurlHTTPClient(connectTimeoutSeconds: timeout, totalTimeoutSeconds: timeout)
        if !Self.isAddressLiteral(host) {
            let usable = (routes.ipv4 ? resolver.addresses(of: host, family: AF_INET) : [])
                + (routes.ipv6 ? resolver.addresses(of: host, family: AF_INET6) : [])
            guard !usable.isEmpty else {
                note(false, "passwords: range service \(host): no address this host can reach — passwords are checked on this box only")
                return
            }
            client.resolveOverrides = ["\(host):\(port):" + usable.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ",")]
        }
        let started = Clock.monotonicMillis()
        do {
            let response = try client.send(HTTPRequest(url: url + "/00000", headers: [("Add-Padding", "true")]))
            let ms = Int(Clock.monotonicMillis() - started)
            guard response.status == 200, let lines = PwnedRange.parse(response.body) else {
                note(false, "passwords: range service \(host) answered \(response.status), not a range — passwords are checked on this box only")
                return
            }
            note(true, "passwords: range service \(host) answered a range of \(lines.count) lines in \(ms) ms")
        } catch {
            note(false, "passwords: range service \(host): no answer (\(error.detail ?? error.message)) — passwords are checked on this box only")
        }
    }
}
