import Foundation
import GRDB
import RecipeModels

/// Collecting the local files no unsynced work needs: outbox files and the temporary files of writers that are gone.
extension RecipeStore {
    /// The outbox files (`<uuid>-<revision>.json`) some unsynced work still refers to: the current revision of a
    /// recipe not yet on the server, or any revision of a recipe leased by a live process (its upload may be
    /// streaming that file now).
    public func referencedOutboxFiles(now: Date, isOwnerAlive: @escaping (String) -> Bool) throws(StoreError) -> Set<String> {
        try read { db in
            var names = Set<String>()
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT uuid, revision, lease_owner, lease_expires_at FROM recipes
                    WHERE revision > synced_revision OR lease_owner IS NOT NULL
                    """)
            for row in rows {
                let uuid: String = row[0]
                let revision: Int64 = row[1]
                names.insert(Outbox.fileName(uuid: uuid, revision: revision))
                if let owner: String = row[2], let expiry: Double = row[3], expiry > now.timeIntervalSince1970,
                    isOwnerAlive(owner)
                {
                    names.insert(Outbox.leasedPrefix(uuid: uuid))
                }
            }
            return names
        }
    }

    /// Deletes outbox files no unsynced work refers to (see `referencedOutboxFiles`), and temporary files whose
    /// writer is gone (or, writer unknown, older than `TemporaryFiles.grace`); returns their names.
    ///
    /// Only regular files named as recipes names them (`OwnFileNames`) are deleted; anything else in the folder is
    /// left alone, and an outbox folder that is a symbolic link is refused (`StoreError.Kind.symlinkedFolder`).
    @discardableResult
    public func collectOutboxGarbage(now: Date, isOwnerAlive: @escaping (String) -> Bool) throws(StoreError) -> [String] {
        guard let folder = try HomeFolder.open(home.outboxURL.path) else { return [] }
        let names = try folder.entries().filter(Outbox.isOwnFile).map(\.name).sorted()
        guard !names.isEmpty else { return [] }
        let referenced = try referencedOutboxFiles(now: now, isOwnerAlive: isOwnerAlive)
        var removed: [String] = []
        for name in names {
            if referenced.contains(name) { continue }
            if let prefix = Outbox.uuidPrefix(of: name), referenced.contains(prefix) { continue }
            if TemporaryFiles.isLive(name, in: folder, now: now, isWriterAlive: isOwnerAlive) { continue }
            if folder.remove(name) { removed.append(name) }
        }
        return removed
    }

    /// Removes local files that no recipe refers to any more, and temporary copies of writers `isOwnerAlive` says
    /// are gone (see `MediaLibrary.collectGarbage`); a media copy of an image a recipe still shows moves to `images/`,
    /// and one a revision of a recipe's history names stays (an undo may bring it back).
    @discardableResult
    public func collectGarbage(isOwnerAlive: (String) -> Bool = LeaseOwner.isAlive) throws(StoreError) -> [String] {
        try media.withExclusiveAccess { () throws(StoreError) in
            try media.collectGarbage(
                referenced: { () throws(StoreError) in try referencedMediaFiles() }, now: now(),
                isWriterAlive: isOwnerAlive,
                adopt: { name throws(StoreError) in
                    let (shown, named) = try read { db in (try Self.shownImages([name], db), try Self.historyNames(file: name, db)) }
                    // A copy no recipe refers to moves to `images/` when a recipe shows it; else it stays while a
                    // revision an undo may bring back names it.
                    return !images.adopt(Array(shown), from: media).isEmpty || named
                })
        }
    }

    /// Deletes the images of `images/` no recipe shows, offers in a conflict, has as the base of one or as a revision of
    /// its history any more, and the temporary files of
    /// downloads whose writer is gone; returns their names. Under the media lock, which also orders the moves from
    /// `media/`; skipped (nothing deleted, the next run collects) while a pull has the folder in use.
    @discardableResult
    public func collectImageGarbage(isOwnerAlive: (String) -> Bool = LeaseOwner.isAlive) throws(StoreError) -> [String] {
        try media.withExclusiveAccess { () throws(StoreError) in
            try images.unlessInUse { () throws(StoreError) in
                let referenced = try read { db in
                    var shas = try String.fetchSet(db, sql: "SELECT image_sha256 FROM recipes WHERE image_sha256 IS NOT NULL")
                    // A revision of a recipe's history may be brought back by an undo: its image stays.
                    if try db.tableExists("recipe_history") {
                        shas.formUnion(try String.fetchSet(
                            db, sql: "SELECT image_sha256 FROM recipe_history WHERE image_sha256 IS NOT NULL"))
                    }
                    // A recipe in conflict may be resolved to the server's side, or its base restored: both images stay.
                    let rows = try Row.fetchAll(
                        db, sql: "SELECT conflicts, base_fields FROM recipes WHERE conflicts IS NOT NULL")
                    for row in rows {
                        if let text: String = row[0], let conflict = try? RecipeConflict(storedJSON: text) {
                            shas.formUnion(conflict.imageSHA256s)
                        }
                        if let text: String = row[1], let image = RecipeFields(storedJSON: text)?.image {
                            shas.insert(image.sha256)
                        }
                    }
                    return shas
                }
                return try images.collectGarbage(referenced: referenced, now: now(), isWriterAlive: isOwnerAlive)
            } ?? []
        }
    }

    /// The file names in `media/` that some recipe still refers to.
    public func referencedMediaFiles() throws(StoreError) -> Set<String> {
        try read { db in
            try String.fetchSet(db, sql: "SELECT image_file FROM recipes WHERE image_file IS NOT NULL")
        }
    }

    /// Whether a revision of some recipe's history names the media copy `file` (false in a schema without history).
    static func historyNames(file: String, _ db: Database) throws -> Bool {
        guard try db.tableExists("recipe_history") else { return false }
        return try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM recipe_history WHERE image_file = ?)"),
            arguments: [file]) ?? false
    }
}
