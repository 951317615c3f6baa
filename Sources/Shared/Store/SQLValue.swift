/// A value bound to or read from SQLite, one case per storage class. Tables are STRICT, so what
/// goes in comes back as the same case.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// One result row, columns by position in the SELECT list.
public struct Row: Sendable {
    let values: [SQLValue]

    init(_ values: [SQLValue]) {
        self.values = values
    }

    public var count: Int { values.count }

    /// The column at `index`; traps when out of range, like an array.
    public subscript(_ index: Int) -> SQLValue { values[index] }

    /// The column as an integer, or nil when it is NULL or of another type.
    public func int(_ index: Int) -> Int64? {
        if case .integer(let v) = values[index] { return v }
        return nil
    }

    /// The column as text, or nil when it is NULL or of another type.
    public func text(_ index: Int) -> String? {
        if case .text(let v) = values[index] { return v }
        return nil
    }

    /// The column as bytes (an empty blob is `[]`, not nil), or nil when it is NULL or of another type.
    public func blob(_ index: Int) -> [UInt8]? {
        if case .blob(let v) = values[index] { return v }
        return nil
    }
}
