/// A configuration problem, naming the key so the operator can find it (`google.clientIds[1]`).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public let key: String
    public let reason: String

    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    public var description: String { "config: \(key): \(reason)" }
}
