import Foundation
import GRDB
import RecipeModels

extension RecipeStore {
    /// The recipe with local id `id`, with its ingredients and steps.
    public func recipe(id: Int64) throws(StoreError) -> Recipe {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM recipes WHERE id = ?", arguments: [id]) else {
                throw StoreError(.unknownRecipe(id: id))
            }
            var recipe = Self.decode(row)
            recipe.ingredients = try String.fetchAll(
                db, sql: "SELECT text FROM ingredients WHERE recipe_id = ? ORDER BY position", arguments: [id]
            ).map(Ingredient.init(text:))
            recipe.steps = try String.fetchAll(
                db, sql: "SELECT text FROM steps WHERE recipe_id = ? ORDER BY position", arguments: [id]
            ).map(Step.init(text:))
            return recipe
        }
    }

    /// Every recipe in id order, without ingredients and steps (what `list` and `status` need).
    ///
    /// With `ids`, only those; an unknown id throws.
    public func recipes(ids: [Int64]? = nil) throws(StoreError) -> [Recipe] {
        try read { db in
            guard let ids else {
                return try Row.fetchAll(db, sql: "SELECT * FROM recipes ORDER BY id").map(Self.decode)
            }
            return try ids.map { id in
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM recipes WHERE id = ?", arguments: [id]) else {
                    throw StoreError(.unknownRecipe(id: id))
                }
                return Self.decode(row)
            }
        }
    }

    /// The number of recipes.
    public func count() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recipes") ?? 0 }
    }

    /// Decodes one `recipes` row (parts are loaded separately).
    static func decode(_ row: Row) -> Recipe {
        func date(_ column: String) -> Date? {
            (row[column] as Double?).map { Date(timeIntervalSince1970: $0) }
        }
        var image: ImageReference?
        if let sha: String = row["image_sha256"], let formatName: String = row["image_format"],
           let format = ImageFormat(rawValue: formatName) {
            image = ImageReference(
                sha256: sha, format: format, byteCount: row["image_bytes"] ?? 0, localFileName: row["image_file"])
        }
        let sync = SyncInfo(
            state: SyncState(rawValue: row["state"]) ?? .pending,
            revision: row["revision"],
            syncedRevision: row["synced_revision"],
            attempts: row["attempts"],
            nextAttemptAt: date("next_attempt_at"),
            lastError: row["last_error"],
            leaseOwner: row["lease_owner"],
            leaseExpiresAt: date("lease_expires_at"),
            cancelRequested: row["cancel_requested"],
            remoteImageURL: row["remote_image_url"],
            remoteImageSHA256: row["remote_image_sha256"],
            offlineSince: date("offline_since"))
        let uuidText: String = row["uuid"]
        return Recipe(
            id: row["id"],
            uuid: UUID(uuidString: uuidText) ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            title: row["title"],
            description: row["description"],
            recipeYield: row["recipe_yield"],
            keywords: row["keywords"],
            image: image,
            sync: sync,
            dateModified: date("updated_at") ?? Date(timeIntervalSince1970: 0))
    }
}
