import Foundation
import GRDB

/// Bearer tokens the v1 token endpoint granted, kept so that a restarted emulator
/// honours the tokens its SDK clients hold.
extension DeviceStore {
    /// A bearer token the HTTP v1 API issued: its SHA-256 digest, its project, and
    /// when it expires (seconds since 1970).
    public struct SavedGrant: Sendable, Equatable {
        public var digest: Data
        public var project: String
        public var expires: Double

        public init(digest: Data, project: String, expires: Double) {
            self.digest = digest
            self.project = project
            self.expires = expires
        }
    }

    /// Keeps a bearer token's grant (written at once, before the token is handed
    /// out); grants expired more than a day are dropped.
    public func save(_ grant: SavedGrant) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO grants(digest, project, expires) VALUES (?, ?, ?)",
                arguments: [grant.digest, grant.project, grant.expires])
            try db.execute(sql: "DELETE FROM grants WHERE expires < ?", arguments: [grant.expires - 90_000])
        }
    }

    /// The grants kept, for a restarted emulator to honour.
    public func savedGrants() throws -> [SavedGrant] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT digest, project, expires FROM grants").map {
                SavedGrant(digest: $0["digest"], project: $0["project"], expires: $0["expires"])
            }
        }
    }
}
