/// Why a `frontdoor-admin` command failed. The kind decides the exit status (`sysexits.h`) and
/// the `error` member of the JSON object, in one place.
struct AdminError: Error {
    enum Kind {
        /// EX_USAGE: the command line is wrong.
        case usage
        /// EX_NOINPUT: no such account, identity, file or folder.
        case notFound
        /// EX_UNAVAILABLE: the store is busy or closed for a restore, or the action is refused.
        case unavailable
        /// EX_SOFTWARE: anything else.
        case failed
    }

    let kind: Kind
    /// One sentence for the operator (stderr, and the JSON's `message`).
    let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// An error of the shared code, its detail (never a secret) told to the operator.
    init(_ error: FrontdoorError) {
        switch error.code {
        case .notFound: kind = .notFound
        case .upstreamUnavailable: kind = .unavailable
        case .invalidRequest: kind = .usage
        default: kind = .failed
        }
        message = error.detail.map { "\(error.message) (\($0))" } ?? error.message
    }

    var exitStatus: Int32 {
        switch kind {
        case .usage: 64
        case .notFound: 66
        case .unavailable: 69
        case .failed: 70
        }
    }

    var code: String {
        switch kind {
        case .usage: "usage"
        case .notFound: "not_found"
        case .unavailable: "unavailable"
        case .failed: "internal"
        }
    }

    static func noAccount(_ what: String) -> AdminError { AdminError(.notFound, "No account has \(what).") }
}
