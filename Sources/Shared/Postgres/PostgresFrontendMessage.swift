/// The messages this client sends, protocol 3.0, appended to one buffer so a whole exchange
/// (Parse, Bind, Describe, Execute, Sync) leaves in one write.
struct PostgresFrontend {
    private(set) var bytes: [UInt8] = []

    static let protocolVersion: Int32 = 3 << 16
    static let cancelRequestCode: Int32 = 80_877_102

    /// The startup packet: no type byte; `parameters` is names and values in turn, each sent
    /// NUL-terminated.
    mutating func startup(_ parameters: [String]) throws(PostgresError) {
        let at = bytes.count
        int32(0)
        int32(Self.protocolVersion)
        for text in parameters { try cString(text) }
        bytes.append(0)
        try patchLength(at: at)
    }

    static func cancelRequest(processID: Int32, secretKey: Int32) -> [UInt8] {
        var message = PostgresFrontend()
        message.int32(16)
        message.int32(cancelRequestCode)
        message.int32(processID)
        message.int32(secretKey)
        return message.bytes
    }

    /// PasswordMessage ('p'): a cleartext or MD5 password, NUL-terminated.
    mutating func password(_ text: String) throws(PostgresError) {
        let at = begin("p")
        try cString(text)
        try patchLength(at: at)
    }

    mutating func saslInitialResponse(mechanism: String, _ response: [UInt8]) throws(PostgresError) {
        let at = begin("p")
        try cString(mechanism)
        int32(Int32(response.count))
        bytes += response
        try patchLength(at: at)
    }

    mutating func saslResponse(_ response: [UInt8]) throws(PostgresError) {
        let at = begin("p")
        bytes += response
        try patchLength(at: at)
    }

    /// Parse of the unnamed statement, each parameter's type given (`PostgresParameter`; 0: the
    /// server infers it).
    mutating func parse(_ sql: String, _ params: [SQLValue]) throws(PostgresError) {
        guard params.count <= Int(Int16.max) else {
            throw PostgresError(.misuse, "\(params.count) parameters: the protocol carries at most \(Int16.max)")
        }
        let at = begin("P")
        bytes.append(0)
        try cString(sql)
        int16(Int16(params.count))
        for param in params { int32(Int32(bitPattern: PostgresParameter(param).typeOID)) }
        try patchLength(at: at)
    }

    /// Bind of the unnamed portal to the unnamed statement: each value in its own format, every
    /// result column in text.
    mutating func bind(_ params: [SQLValue]) throws(PostgresError) {
        guard params.count <= Int(Int16.max) else { throw PostgresError(.misuse, "\(params.count) parameters") }
        let at = begin("B")
        bytes.append(0)
        bytes.append(0)
        int16(Int16(params.count))
        for param in params { int16(PostgresParameter(param).format) }
        int16(Int16(params.count))
        for param in params {
            if let data = PostgresParameter(param).bytes {
                guard data.count <= Int(Int32.max) else { throw PostgresError(.misuse, "a parameter above 2 GiB") }
                int32(Int32(data.count))
                bytes += data
            } else {
                int32(-1)
            }
        }
        int16(0)
        try patchLength(at: at)
    }

    /// Describe of the unnamed portal: its RowDescription, or NoData.
    mutating func describePortal() {
        bytes += [UInt8(ascii: "D"), 0, 0, 0, 6, UInt8(ascii: "P"), 0]
    }

    /// Execute of the unnamed portal, every row.
    mutating func execute() {
        bytes += [UInt8(ascii: "E"), 0, 0, 0, 9, 0, 0, 0, 0, 0]
    }

    mutating func sync() {
        bytes += [UInt8(ascii: "S"), 0, 0, 0, 4]
    }

    /// A simple Query: one statement without parameters (BEGIN, COMMIT, pgbouncer's SHOW).
    mutating func query(_ sql: String) throws(PostgresError) {
        let at = begin("Q")
        try cString(sql)
        try patchLength(at: at)
    }

    mutating func terminate() {
        bytes += [UInt8(ascii: "X"), 0, 0, 0, 4]
    }

    private mutating func begin(_ type: Unicode.Scalar) -> Int {
        bytes.append(UInt8(ascii: type))
        let at = bytes.count
        int32(0)
        return at
    }

    /// Writes the length of the message whose length field is at `at`: from there to the end.
    private mutating func patchLength(at: Int) throws(PostgresError) {
        let length = bytes.count - at
        guard length <= Int(Int32.max) else { throw PostgresError(.misuse, "a message above 2 GiB") }
        let value = UInt32(length)
        bytes[at] = UInt8(value >> 24)
        bytes[at + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[at + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[at + 3] = UInt8(truncatingIfNeeded: value)
    }

    private mutating func int16(_ value: Int16) {
        let v = UInt16(bitPattern: value)
        bytes.append(UInt8(v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    private mutating func int32(_ value: Int32) {
        let v = UInt32(bitPattern: value)
        bytes.append(UInt8(v >> 24))
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    /// A NUL-terminated string; one holding a NUL would end early, so it is refused.
    private mutating func cString(_ text: String) throws(PostgresError) {
        let start = bytes.count
        bytes += text.utf8
        guard !bytes[start...].contains(0) else { throw PostgresError(.misuse, "a string holding a NUL byte") }
        bytes.append(0)
    }
}
