#if canImport(Glibc)
import Glibc
#endif

/// The CGI variables frontdoor reads, and only those: copying all of `environ` into a dictionary
/// cost a refused request 7% of its instructions. A struct rather than `[String: String]`: the
/// first dictionary of strings in a process costs about 120 K instructions of run-time type
/// look-up (checking `String: Hashable` against every conformance record), a third of a refusal.
public struct CGIEnvironment: Sendable, ExpressibleByDictionaryLiteral {
    public var requestMethod: String?
    public var contentType: String?
    public var contentLength: String?
    public var authorization: String?
    public var remoteAddress: String?
    /// `AUTH_CONFIG`: the path of the JSON config file.
    public var configPath: String?
    /// `FRONTDOOR_ANSWER`: `headers` from nginx's internal check location, whose body nginx
    /// discards (see `SessionCheck`). Set by `fastcgi_param` alone: no client header maps to it.
    public var answer: String?

    public init() {}

    /// By variable name, for tests and tools; names frontdoor does not read are dropped.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    /// The variable `name` (`REQUEST_METHOD`, …); nil for an unset variable or one frontdoor does
    /// not read. Setting a name frontdoor does not read does nothing.
    public subscript(name: String) -> String? {
        get {
            switch name {
            case "REQUEST_METHOD": requestMethod
            case "CONTENT_TYPE": contentType
            case "CONTENT_LENGTH": contentLength
            case "HTTP_AUTHORIZATION": authorization
            case "REMOTE_ADDR": remoteAddress
            case "AUTH_CONFIG": configPath
            case "FRONTDOOR_ANSWER": answer
            default: nil
            }
        }
        set {
            switch name {
            case "REQUEST_METHOD": requestMethod = newValue
            case "CONTENT_TYPE": contentType = newValue
            case "CONTENT_LENGTH": contentLength = newValue
            case "HTTP_AUTHORIZATION": authorization = newValue
            case "REMOTE_ADDR": remoteAddress = newValue
            case "AUTH_CONFIG": configPath = newValue
            case "FRONTDOOR_ANSWER": answer = newValue
            default: break
            }
        }
    }

    /// The variables a request keeps, unwrapped and wrapped again: copied as they are, each
    /// optional string went through its value witnesses, whose first use cost a refused request
    /// ~35 K instructions of run-time metadata look-up.
    var requestStrings: (contentType: String?, authorization: String?, remoteAddress: String?) {
        var contentType: String?
        var authorization: String?
        var remoteAddress: String?
        if let value = self.contentType { contentType = value }
        if let value = self.authorization { authorization = value }
        if let value = self.remoteAddress { remoteAddress = value }
        return (contentType, authorization, remoteAddress)
    }

    /// This process's values of the variables.
    public static func process() -> CGIEnvironment {
        var environment = CGIEnvironment()
        environment.requestMethod = variable("REQUEST_METHOD")
        environment.contentType = variable("CONTENT_TYPE")
        environment.contentLength = variable("CONTENT_LENGTH")
        environment.authorization = variable("HTTP_AUTHORIZATION")
        environment.remoteAddress = variable("REMOTE_ADDR")
        environment.configPath = variable("AUTH_CONFIG")
        environment.answer = variable("FRONTDOOR_ANSWER")
        return environment
    }

    static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
