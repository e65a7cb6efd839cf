import Foundation
import GRDB

/// Bearer tokens the v1 token endpoint granted, kept so that a restarted emulator
/// honours the tokens its SDK clients hold: the SHA-256 digest of each token (never
/// the token), its project, and when it expires (seconds since 1970).
extension DeviceStore {
    /// Keeps one grant (written at once, before the token is handed out); grants
    /// expired more than a day are dropped.
    public func saveGrant(digest: Data, project: String, expires: Double) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO grants(digest, project, expires) VALUES (?, ?, ?)",
                arguments: [digest, project, expires])
            try db.execute(sql: "DELETE FROM grants WHERE expires < ?", arguments: [expires - 90_000])
        }
    }

    /// The grants kept, for a restarted emulator to honour.
    public func savedGrants() throws -> [(digest: Data, project: String, expires: Double)] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT digest, project, expires FROM grants").map {
                (digest: $0["digest"], project: $0["project"], expires: $0["expires"])
            }
        }
    }
}
