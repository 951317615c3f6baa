/// Why CBOR input was refused. The raw value is a stable code for logs and tests; none of them
/// carries a byte of the input. Every case is malformed input: 400 `invalid_request` (via
/// `PasskeyError.malformed`).
public enum CBORError: String, Error, Sendable, Equatable, CustomStringConvertible {
    /// A head, argument or string runs past the end of the input.
    case truncated = "cbor_truncated"
    /// Bytes after the one data item the input must be.
    case trailingBytes = "cbor_trailing_bytes"
    /// The input (or the one item read from within a larger input) is longer than its limit.
    case tooLarge = "cbor_too_large"
    /// Arrays and maps nested deeper than the limit.
    case tooDeep = "cbor_too_deep"
    /// More data items in all than the limit (each key, value and element counts), or a declared
    /// count that could not fit.
    case tooManyItems = "cbor_too_many_items"
    /// Additional information 31: indefinite-length strings, arrays or maps, or a lone "break".
    case indefiniteLength = "cbor_indefinite_length"
    /// Major type 6. WebAuthn's structures have no tags.
    case tag = "cbor_tag"
    /// Half, single and double precision floats.
    case float = "cbor_float"
    /// Simple values other than `false` and `true` (`null`, `undefined`, unassigned ones).
    case simpleValue = "cbor_simple_value"
    /// Additional information 28 to 30, reserved by RFC 8949.
    case reservedAdditionalInfo = "cbor_reserved_additional_info"
    /// An integer, length or count not in its shortest form (RFC 8949 section 4.2.1, CTAP2's
    /// canonical form).
    case nonShortestEncoding = "cbor_non_shortest_encoding"
    /// An integer outside Int64 (a negative one below -2^63, or an unsigned one above 2^63 - 1).
    case integerOutOfRange = "cbor_integer_out_of_range"
    case invalidUTF8 = "cbor_invalid_utf8"
    /// A map key that is neither an integer nor a text string.
    case mapKeyType = "cbor_map_key_type"
    case duplicateMapKey = "cbor_duplicate_map_key"
    /// Map keys out of CTAP2's canonical order, where the caller asked for it (COSE keys).
    case mapKeyOrder = "cbor_map_key_order"

    public var description: String { rawValue }
}
