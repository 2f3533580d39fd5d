import Foundation
import GRDB

extension RecipeStore {
    /// The server version of every recipe the server has as far as this device knows (its `server_version` is
    /// set), by uuid: what a destination without tombstones (Mealie) compares its list of ids with to find the
    /// recipes deleted there, and what tells a listed recipe this device has seen from one it has not.
    public func serverVersions() throws(StoreError) -> [UUID: Int64] {
        try read { db in
            var versions: [UUID: Int64] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT uuid, server_version FROM recipes WHERE server_version IS NOT NULL")
            while let row = try rows.next() {
                if let uuid = UUID(uuidString: row["uuid"] as String) { versions[uuid] = row["server_version"] as Int64 }
            }
            return versions
        }
    }
}
