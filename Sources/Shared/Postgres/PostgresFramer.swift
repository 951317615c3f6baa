/// Cuts the bytes a server sends into messages: a type byte, a 32-bit length that counts itself
/// and the body, the body. A length below 4, or above `maxMessageBytes`, is refused before any of
/// the body is waited for, so a broken or hostile server cannot make the client buffer without end.
struct PostgresFramer {
    /// frontdoor's rows are small; a whole result message above this is a fault, not data.
    static let defaultMaxMessageBytes = 16 << 20

    let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0

    init(maxMessageBytes: Int = PostgresFramer.defaultMaxMessageBytes) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Bytes received and not yet handed out as a message.
    var pendingBytes: Int { buffer.count - start }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 64 << 10 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next whole message, or nil when more bytes are needed.
    mutating func next() throws(PostgresError) -> (type: UInt8, body: [UInt8])? {
        guard buffer.count - start >= 5 else { return nil }
        let type = buffer[start]
        let length = Int(buffer[start + 1]) << 24 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 8
            | Int(buffer[start + 4])
        guard length >= 4 else {
            throw PostgresError(.protocolViolation, "message \(MessageReader.printable(type)): length \(length) below 4")
        }
        guard length <= maxMessageBytes else {
            throw PostgresError(
                .protocolViolation, "message \(MessageReader.printable(type)): \(length) bytes, above \(maxMessageBytes)")
        }
        guard buffer.count - start >= 1 + length else { return nil }
        let body = Array(buffer[(start + 5)..<(start + 1 + length)])
        start += 1 + length
        return (type, body)
    }
}
