@testable import Shared

/// Where a connection's schema objects are: a store opened whole has its session file as `main`
/// and the store attached as `store` (`SessionFile`), so its `sqlite_schema` is two tables.
func storeSchema(_ db: Database) -> String {
    if case .sqlite(let lite) = db.engine, lite.isSplit {
        return "(SELECT * FROM main.sqlite_schema UNION ALL SELECT * FROM store.sqlite_schema)"
    }
    return "sqlite_schema"
}

/// The store's schema version, wherever the connection has the store.
func storeVersion(_ db: Database) throws(FrontdoorError) -> Int64? {
    if case .sqlite(let lite) = db.engine, lite.isSplit {
        return try db.query("PRAGMA store.user_version").first?.int(0)
    }
    return try db.query("PRAGMA user_version").first?.int(0)
}
