import CSQLite

/// One prepared statement. The Database owns it (cached by SQL text) and finalizes it on close.
struct Statement {
    let pointer: OpaquePointer

    /// Prepares exactly one statement; text after it (other than white space) is refused, so a
    /// second statement can never ride along unnoticed.
    static func prepare(_ db: OpaquePointer, _ sql: String) throws(FrontdoorError) -> Statement {
        var stmt: OpaquePointer?
        var rc: Int32 = SQLITE_OK
        var trailing = false
        sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            rc = sqlite3_prepare_v2(db, text, -1, &stmt, &tail)
            if rc == SQLITE_OK, var rest = tail {
                while rest.pointee != 0 {
                    if !isWhiteSpace(rest.pointee) {
                        trailing = true
                        break
                    }
                    rest += 1
                }
            }
        }
        guard rc == SQLITE_OK else {
            let error = SQLiteError.make(db, "prepare", rc)
            sqlite3_finalize(stmt)  // nil-safe; a failed prepare leaves nothing, but be sure
            throw error
        }
        guard let stmt else { throw SQLiteError.make("prepare", SQLITE_MISUSE, "no statement in SQL") }
        guard !trailing else {
            sqlite3_finalize(stmt)
            throw SQLiteError.make("prepare", SQLITE_MISUSE, "more than one statement in SQL")
        }
        return Statement(pointer: stmt)
    }

    func bind(_ db: OpaquePointer, _ params: [SQLValue]) throws(FrontdoorError) {
        let expected = Int(sqlite3_bind_parameter_count(pointer))
        guard expected == params.count else {
            throw SQLiteError.make("bind", SQLITE_RANGE, "expected \(expected) parameters, got \(params.count)")
        }
        for (offset, value) in params.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null:
                rc = sqlite3_bind_null(pointer, index)
            case .integer(let v):
                rc = sqlite3_bind_int64(pointer, index, v)
            case .text(let v):
                guard v.utf8.count <= Int32.max else { throw SQLiteError.make("bind", SQLITE_TOOBIG, "text too long") }
                var copy = v
                rc = copy.withUTF8 { utf8 in
                    // An empty buffer may have no address, and a NULL pointer would bind NULL, not ''.
                    guard let base = utf8.baseAddress, !utf8.isEmpty else {
                        return frontdoor_sqlite3_bind_text_transient(pointer, index, "", 0)
                    }
                    return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                        frontdoor_sqlite3_bind_text_transient(pointer, index, $0, Int32(utf8.count))
                    }
                }
            case .blob(let v):
                guard v.count <= Int32.max else { throw SQLiteError.make("bind", SQLITE_TOOBIG, "blob too long") }
                if v.isEmpty {
                    // bind_blob with no bytes binds NULL; a zero-length zeroblob is an empty blob.
                    rc = sqlite3_bind_zeroblob(pointer, index, 0)
                } else {
                    rc = v.withUnsafeBytes { bytes in
                        frontdoor_sqlite3_bind_blob_transient(pointer, index, bytes.baseAddress, Int32(bytes.count))
                    }
                }
            }
            guard rc == SQLITE_OK else { throw SQLiteError.make(db, "bind", rc) }
        }
    }

    /// Steps to the end, collecting every row.
    func rows(_ db: OpaquePointer) throws(FrontdoorError) -> [Row] {
        var rows: [Row] = []
        while true {
            let rc = sqlite3_step(pointer)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw SQLiteError.make(db, "step", rc) }
            rows.append(currentRow())
        }
    }

    private func currentRow() -> Row {
        let count = sqlite3_column_count(pointer)
        var values: [SQLValue] = []
        values.reserveCapacity(Int(count))
        for column in 0..<count {
            switch sqlite3_column_type(pointer, column) {
            case SQLITE_INTEGER:
                values.append(.integer(sqlite3_column_int64(pointer, column)))
            case SQLITE_TEXT:
                // column_text before column_bytes, as SQLite documents, so the length is of the UTF-8 form.
                let text = sqlite3_column_text(pointer, column)
                let length = Int(sqlite3_column_bytes(pointer, column))
                let utf8 = text.map { UnsafeBufferPointer(start: $0, count: length) }
                values.append(.text(utf8.map { String(decoding: $0, as: UTF8.self) } ?? ""))
            case SQLITE_BLOB:
                let bytes = sqlite3_column_blob(pointer, column)
                let length = Int(sqlite3_column_bytes(pointer, column))
                values.append(.blob(bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []))
            case SQLITE_FLOAT:
                // The schema stores no REAL; an expression that yields one (AVG, say) reads as text.
                values.append(.text(String(sqlite3_column_double(pointer, column))))
            default:
                values.append(.null)
            }
        }
        return Row(values)
    }

    /// Makes the statement ready for its next use, dropping the values bound to it.
    /// After a failed step, reset repeats that step's error, which has already been thrown.
    func reset() -> Int32 {
        let rc = sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
        return rc
    }

    func finalize() {
        // Its return code repeats the statement's last error, already reported.
        sqlite3_finalize(pointer)
    }
}

private func isWhiteSpace(_ c: CChar) -> Bool {
    c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C
}

extension Statement {
    /// Runs a script of several statements in order (migrations); each is prepared, stepped to the
    /// end and finalized before the next.
    static func executeScript(_ db: OpaquePointer, _ script: String) throws(FrontdoorError) {
        var failure: FrontdoorError?
        script.withCString { start in
            var cursor = start
            while cursor.pointee != 0 {
                var stmt: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v2(db, cursor, -1, &stmt, &tail)
                guard rc == SQLITE_OK else {
                    failure = SQLiteError.make(db, "prepare", rc)
                    return
                }
                // No statement means only white space or comments were left.
                guard let stmt, let tail else { return }
                let statement = Statement(pointer: stmt)
                do throws(FrontdoorError) {
                    _ = try statement.rows(db)
                } catch {
                    failure = error
                }
                statement.finalize()
                if failure != nil { return }
                cursor = tail
            }
        }
        if let failure { throw failure }
    }
}
