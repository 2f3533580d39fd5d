import Foundation
import GRDB
import RecipeModels

extension RecipeStore {
    /// The recipe with local id `id`, with its ingredients and steps.
    public func recipe(id: Int64) throws(StoreError) -> Recipe {
        try read { db in try Self.fetchRecipe(db, id: id) }
    }

    /// Reads recipe `id` with its ingredients and steps on `db` (inside a change's transaction, so that a change
    /// whose result cannot be read back is rolled back with it).
    static func fetchRecipe(_ db: Database, id: Int64) throws -> Recipe {
        // Cached statements: every change reads its recipe back, and the history reads it again before the commit.
        guard var recipe = try storedRecipe(id, db) else { throw StoreError(.unknownRecipe(id: id)) }
        recipe.ingredients = try String.fetchAll(
            db.cachedStatement(sql: "SELECT text FROM ingredients WHERE recipe_id = ? ORDER BY position"), arguments: [id]
        ).map(Ingredient.init(text:))
        recipe.steps = try Self.fetchSteps(id, db)
        return recipe
    }

    /// Every recipe in id order, without ingredients and steps (what `list` and `status` need).
    ///
    /// With `ids`, only those; an unknown id throws.
    public func recipes(ids: [Int64]? = nil) throws(StoreError) -> [Recipe] {
        try read { db in
            guard let ids else {
                return try Row.fetchAll(db, sql: "SELECT \(Self.recipeColumns) FROM recipes ORDER BY id").map(Self.decode)
            }
            return try ids.map { id in
                guard let recipe = try Self.storedRecipe(id, db) else { throw StoreError(.unknownRecipe(id: id)) }
                return recipe
            }
        }
    }

    /// The number of recipes.
    public func count() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recipes") ?? 0 }
    }

    /// The columns `decode` reads, in the order it reads them by index (by-name lookups cost more than the
    /// rest of decoding for a home of thousands of recipes).
    static let recipeColumns = """
        id, uuid, title, description, recipe_yield, keywords, image_sha256, image_format, image_bytes, image_file,
        state, revision, synced_revision, attempts, next_attempt_at, last_error, lease_owner, lease_expires_at,
        cancel_requested, remote_image_url, remote_image_sha256, offline_since, updated_at, deleted, sent_revision,
        server_version, base_fields, conflicts, \(detailColumns)
        """

    /// Decodes one row selected with `recipeColumns` (parts are loaded separately).
    static func decode(_ row: Row) -> Recipe {
        func date(_ index: Int) -> Date? {
            (row[index] as Double?).map { Date(timeIntervalSince1970: $0) }
        }
        var image: ImageReference?
        if let sha: String = row[6], let formatName: String = row[7], let format = ImageFormat(rawValue: formatName) {
            image = ImageReference(sha256: sha, format: format, byteCount: row[8] ?? 0, localFileName: row[9])
        }
        let sync = SyncInfo(
            state: SyncState(rawValue: row[10]) ?? .pending,
            revision: row[11],
            syncedRevision: row[12],
            attempts: row[13],
            nextAttemptAt: date(14),
            lastError: row[15],
            leaseOwner: row[16],
            leaseExpiresAt: date(17),
            cancelRequested: row[18],
            remoteImageURL: row[19],
            remoteImageSHA256: row[20],
            offlineSince: date(21),
            deleted: row[23],
            sentRevision: row[24],
            serverVersion: row[25],
            base: (row[26] as String?).flatMap(RecipeFields.init(storedJSON:)),
            conflict: (row[27] as String?).flatMap { try? RecipeConflict(storedJSON: $0) })
        let uuidText: String = row[1]
        let (details, received) = Self.details(from: row, at: 28)
        return Recipe(
            id: row[0],
            uuid: UUID(text: uuidText) ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            title: row[2],
            description: row[3],
            recipeYield: row[4],
            keywords: row[5],
            details: details,
            received: received,
            image: image,
            sync: sync,
            dateModified: date(22) ?? Date(timeIntervalSince1970: 0))
    }
}
