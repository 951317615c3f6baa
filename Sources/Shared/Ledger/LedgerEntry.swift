/// One line of the ledger: when, which attempt of which transaction wrote it, what was done, to
/// which account. Times and random ids only: no address, name, token, provider subject or
/// anything made from a password.
///
///     <unix time> <attempt> deleted <accountId>
///     <unix time> <attempt> sessions <accountId> <sessionId>,<sessionId>,…
///     <unix time> <attempt> passkey <accountId> <passkeyId>
///     <unix time> <attempt> password <accountId> <passwordVersion>
///     <unix time> <attempt> address <accountId> <emailVersion>
///     <unix time> <attempt> disabled <accountId>            (and enabled)
///     <unix time> <attempt> unlinked <accountId> <provider>
///     <unix time> <attempt> blocked <accountId> <provider>  (and unblocked)
///     <unix time> <attempt> withdrawn
///     <unix time> <accountId>                               (a deletion, as ledgers before issue 29 wrote it)
///
/// `withdrawn` says that the lines of that attempt did not commit (PostgreSQL ran the
/// transaction again, or refused its COMMIT): a re-application skips them.
public struct LedgerEntry: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case deleted
        /// The public ids of the sessions it ended.
        case sessionsEnded([String])
        /// The passkey's public id (its credential id, base64url).
        case passkeyRemoved(String)
        /// The account's new `password_version` (random): the hash set then, or none.
        case passwordChanged(String)
        /// The account's new `email_version` (random): the address set then.
        case addressChanged(String)
        case disabled
        case enabled
        /// The account's identity of that provider went.
        case identityRemoved(String)
        /// The account's identity of that provider was blocked by the provider (Google's `account-disabled`).
        case identityBlocked(String)
        case identityUnblocked(String)
        case withdrawn

        var word: String {
            switch self {
            case .deleted: "deleted"
            case .sessionsEnded: "sessions"
            case .passkeyRemoved: "passkey"
            case .passwordChanged: "password"
            case .addressChanged: "address"
            case .disabled: "disabled"
            case .enabled: "enabled"
            case .identityRemoved: "unlinked"
            case .identityBlocked: "blocked"
            case .identityUnblocked: "unblocked"
            case .withdrawn: "withdrawn"
            }
        }

        var argument: String? {
            switch self {
            case .sessionsEnded(let ids): ids.joined(separator: ",")
            case .passkeyRemoved(let id), .passwordChanged(let id), .addressChanged(let id): id
            case .identityRemoved(let provider), .identityBlocked(let provider), .identityUnblocked(let provider):
                provider
            case .deleted, .disabled, .enabled, .withdrawn: nil
            }
        }
    }

    public let time: UnixTime
    /// The attempt that wrote it; nil on a deletion line of the old form.
    public let attempt: String?
    /// Empty for `withdrawn`.
    public let accountId: String
    public let action: Action
    /// Which of the ledgers a re-application reads it from (not on the line): within one ledger
    /// the order of the lines is the order of the changes to one account, across ledgers only
    /// their times order them.
    var source = 0

    public init(time: UnixTime, attempt: String?, accountId: String, action: Action) {
        self.time = time
        self.attempt = attempt
        self.accountId = accountId
        self.action = action
    }

    /// The line, with its newline.
    var line: String {
        var text = "\(time) \(attempt ?? "-") \(action.word)"
        if !accountId.isEmpty { text += " \(accountId)" }
        if let argument = action.argument { text += " \(argument)" }
        return text + "\n"
    }

    static func parse(_ line: ArraySlice<UInt8>) -> LedgerEntry? {
        let fields = line.split(separator: 0x20, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard fields.count >= 2, let time = Int64(fields[0]) else { return nil }
        if fields.count == 2 {
            guard isId(fields[1]) else { return nil }
            return LedgerEntry(time: time, attempt: nil, accountId: fields[1], action: .deleted)
        }
        let attempt = fields[1]
        guard isId(attempt) else { return nil }
        if fields[2] == "withdrawn" {
            return fields.count == 3 ? LedgerEntry(time: time, attempt: attempt, accountId: "", action: .withdrawn) : nil
        }
        guard fields.count >= 4, isId(fields[3]) else { return nil }
        let argument = fields.count == 5 ? fields[4] : nil
        guard fields.count <= 5 else { return nil }
        let action: Action
        switch (fields[2], argument) {
        case ("deleted", nil): action = .deleted
        case ("disabled", nil): action = .disabled
        case ("enabled", nil): action = .enabled
        case ("sessions", let ids?):
            let list = ids.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard list.allSatisfy(isId) else { return nil }
            action = .sessionsEnded(list)
        case ("passkey", let id?) where isId(id, maxBytes: 1400): action = .passkeyRemoved(id)
        case ("password", let version?) where isId(version): action = .passwordChanged(version)
        case ("address", let version?) where isId(version): action = .addressChanged(version)
        case ("unlinked", let provider?) where isProvider(provider): action = .identityRemoved(provider)
        case ("blocked", let provider?) where isProvider(provider): action = .identityBlocked(provider)
        case ("unblocked", let provider?) where isProvider(provider): action = .identityUnblocked(provider)
        default: return nil
        }
        return LedgerEntry(time: time, attempt: attempt, accountId: fields[3], action: action)
    }

    /// Account, session and attempt ids, passkey ids, password and address versions are base64url or hex.
    static func isId(_ text: String) -> Bool { isId(text, maxBytes: 64) }

    static func isId(_ text: String, maxBytes: Int) -> Bool {
        (1...maxBytes).contains(text.utf8.count) && text.utf8.allSatisfy(isIdByte)
    }

    static func isProvider(_ text: String) -> Bool {
        (1...16).contains(text.utf8.count) && text.utf8.allSatisfy { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
    }

    static func isIdByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
