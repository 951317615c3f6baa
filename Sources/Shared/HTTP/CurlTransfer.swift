import CCurl

/// What libcurl's callbacks write into during one transfer; reached through CURLOPT_WRITEDATA and
/// CURLOPT_HEADERDATA as an unretained pointer that `CurlHTTPClient.send` keeps alive.
final class CurlTransfer {
    static let maxHeaderBytes = 64 * 1024

    let maxBodyBytes: Int
    var body: [UInt8] = []
    var headers: [(String, String)] = []
    var headerBytes = 0
    var bodyTooLarge = false
    var headersTooLarge = false

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Returning anything but `count` makes libcurl abort with CURLE_WRITE_ERROR, which is how the cap
    /// stops a body that never ends.
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= maxBodyBytes else {
            bodyTooLarge = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// Called once per header line, status lines included.
    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        headerBytes += bytes.count
        guard headerBytes <= Self.maxHeaderBytes else {
            headersTooLarge = true
            return 0
        }
        // Bytes, not Characters: "\r\n" is one Character and would hide from a check for "\r".
        var end = bytes.count
        while end > 0 && (bytes[end - 1] == 0x0D || bytes[end - 1] == 0x0A) { end -= 1 }
        let line = Substring(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self))
        if line.hasPrefix("HTTP/") {
            // A new response starts (after a 100 Continue, say): only the final one's headers count.
            headers.removeAll()
            headerBytes = bytes.count
        } else if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
            headers[headers.count - 1].1 += " " + trimmed(line)
        } else if let colon = line.firstIndex(of: ":") {
            headers.append((line[..<colon].lowercased(), trimmed(line[line.index(after: colon)...])))
        }
        return bytes.count
    }

    private func trimmed(_ text: Substring) -> String {
        var text = text
        while let c = text.first, c == " " || c == "\t" { text.removeFirst() }
        while let c = text.last, c == " " || c == "\t" { text.removeLast() }
        return String(text)
    }
}

/// The C callbacks: plain functions with no captures, so they convert to C function pointers.
enum CurlCallbacks {
    static let body: curl_write_callback = { data, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.appendBody(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    static let header: curl_write_callback = { data, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
    }
}
