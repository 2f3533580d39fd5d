import Foundation
import GRDB
import RecipeModels

/// What `RecipeStore.resolve(id:side:only:)` did to one recipe.
public struct ConflictResolved: Sendable, Equatable {
    /// The recipe's local id.
    public var id: Int64
    /// Its title now (for a recipe removed here, the title it had).
    public var title: String
    /// The side chosen.
    public var side: ConflictSide
    /// What the choice came to (see `ConflictResolution`).
    public var resolution: ConflictResolution
    /// The conflicts settled, by the names they had: `title`, `ingredient 3`; `recipe` for a deletion conflict.
    public var settled: [String]
    /// What is still in conflict (with the places it has now), if anything.
    public var left: RecipeConflict?
    /// The recipe's state now; nil when it was removed here.
    public var state: SyncState?
}

extension RecipeStore {
    /// Resolves recipe `id`'s conflict to `side`: all of it, or the fields `fieldNames` names (`title`, `ingredients`,
    /// `ingredient 3`, …), in one transaction (docs/commands.md, `recipes resolve`).
    ///
    /// Chosen fields become the draft at the next revision; with conflicts left the recipe stays in conflict, else it
    /// is pending, based on the server version it was merged against, or synced there without a push when the draft
    /// equals the server's copy. Deleted on the server: mine re-creates it there (pushed as the tombstone's version +
    /// 1), theirs removes it here with its media copy. Deleted here: mine sends the deletion, theirs restores the
    /// server's copy, synced. Refused, changing nothing: an unknown id, a recipe without a conflict, a field name that
    /// names no conflict, a recipe a live process is uploading or pulling.
    public func resolve(
        id: Int64, side: ConflictSide, only fieldNames: [String] = [],
        isOwnerAlive: @escaping (String) -> Bool = LeaseOwner.isAlive
    ) throws(StoreError) -> ConflictResolved {
        let now = self.now()
        let change = { (db: Database) throws -> (ConflictResolved, String?) in
            try Self.resolve(id, to: side, only: fieldNames, now: now, images: self.images, isOwnerAlive: isOwnerAlive, db)
        }
        // As for `delete`: the media lock only when there is a copy the resolution may let go.
        guard try currentCopy(of: id) != nil else { return try edit(change).0 }
        return try media.withExclusiveAccess { () throws(StoreError) -> ConflictResolved in
            let (resolved, unneededCopy) = try edit(change)
            if let unneededCopy { media.remove(unneededCopy) }
            return resolved
        }
    }

    /// The resolution inside the caller's transaction; also the media copy no row refers to any more, if any.
    private static func resolve(
        _ id: Int64, to side: ConflictSide, only fieldNames: [String], now: Date, images: ImageLibrary,
        isOwnerAlive: (String) -> Bool, _ db: Database
    ) throws -> (ConflictResolved, String?) {
        let recipe = try fetchRecipe(db, id: id)
        guard let text = try String.fetchOne(db, sql: "SELECT conflicts FROM recipes WHERE id = ?", arguments: [id]) else {
            throw StoreError(.unknownConflict(id: id))
        }
        if recipe.sync.hasLiveLease(at: now), let owner = recipe.sync.leaseOwner, isOwnerAlive(owner) {
            let process = recipe.sync.leaseProcessID.map { "pid \($0)" } ?? "another recipes process"
            throw StoreError(.resolution(
                detail: "recipe \(id) is being uploaded or pulled by \(process) right now; resolve it once that sync has ended"))
        }
        let (resolution, settled, left) = try choose(side, fieldNames, conflictText: text, of: recipe)
        if (try? RecipeConflict(storedJSON: text)) == nil {
            // The record was read without a conflict (the text is none this version reads); the row is made to say
            // the same, so that the guarded write of the resolution below finds it as read.
            try db.execute(sql: "UPDATE recipes SET conflicts = NULL WHERE id = ?", arguments: [id])
        }
        let mediaCopy = recipe.image?.localFileName
        var removed = false
        // Deleted on the server and let go here: the version the conflict was merged against is the tombstone's (for
        // an undo).
        var tombstone: Int64?
        if case .removeHere = resolution { tombstone = recipe.sync.serverVersion }
        try noteOrigin(.resolve, tombstone: tombstone, of: id, db)
        switch resolution {
        case .fields(let result):
            try write(result.merged, resolving: id, images: images, db)
            let matchesServer = left == nil && recipe.sync.base == result.merged
            try apply(.resolved(.fields(left: left, matchesServer: matchesServer)), to: id, db)
        case .recreateOnServer:
            try apply(.resolved(.recreate), to: id, db)
        case .deleteOnServer:
            try apply(.resolved(.delete), to: id, db)
        case .restoreFromServer:
            guard let base = recipe.sync.base else {
                throw StoreError(.resolution(
                    detail: "the server's copy of recipe \(id) is not known here, so it cannot be restored; "
                        + "`recipes resolve \(id) --mine` sends the deletion"))
            }
            try write(base, resolving: id, images: images, db)
            try apply(.resolved(.restore), to: id, db)
        case .removeHere:
            try apply(.removedOnServer, to: id, db)
            removed = true
        }
        if !removed { try touch(id, now, db) }
        let after = removed ? nil : try storedRecipe(id, db)
        let resolved = ConflictResolved(
            id: id, title: after?.title ?? recipe.title, side: side, resolution: resolution, settled: settled,
            left: left, state: after?.sync.droppingLease(unless: isOwnerAlive).effectiveState(at: now))
        return (resolved, try unreferencedCopy(mediaCopy, keeping: nil, db))
    }

    /// What choosing `side` for the conflicts `fieldNames` names (all of them when none) comes to for `recipe`,
    /// whose stored conflict is `text`: the resolution, the names of the conflicts it settles and what is left.
    ///
    /// A stored conflict that cannot be read is resolved whole, from what the row says: mine keeps the draft (or the
    /// deletion), theirs takes the base (the server's copy).
    private static func choose(
        _ side: ConflictSide, _ fieldNames: [String], conflictText text: String, of recipe: Recipe
    ) throws -> (ConflictResolution, settled: [String], left: RecipeConflict?) {
        let draft = RecipeFields(recipe)
        do {
            let selectors = try fieldNames.map { (name: String) throws(ConflictError) in try ConflictSelector(name: name) }
            let conflict: RecipeConflict
            do {
                conflict = try RecipeConflict(storedJSON: text)
            } catch {
                guard selectors.isEmpty else { throw error }
                return try unreadable(side, recipe)
            }
            let resolution = try conflict.resolve(draft: draft, to: side, only: selectors)
            guard case .fields(let conflicts) = conflict, case .fields(let result) = resolution else {
                return (resolution, ["recipe"], nil)
            }
            let settled = conflicts.filter { conflict in
                selectors.isEmpty || selectors.contains { $0.selects(conflict.field) }
            }
            return (resolution, settled.map(\.field.name), result.conflicts.isEmpty ? nil : .fields(result.conflicts))
        } catch let error as ConflictError {
            throw StoreError(.resolution(detail: error.errorDescription ?? "\(error)"))
        }
    }

    /// The whole resolution of a recipe whose stored conflict cannot be read (see `choose`).
    private static func unreadable(_ side: ConflictSide, _ recipe: Recipe) throws -> (ConflictResolution, [String], RecipeConflict?) {
        switch (recipe.sync.deleted, side) {
        case (true, .mine): return (.deleteOnServer, ["recipe"], nil)
        case (true, .theirs): return (.restoreFromServer, ["recipe"], nil)
        case (false, .mine): return (.fields(MergeResult(merged: RecipeFields(recipe), conflicts: [])), ["recipe"], nil)
        case (false, .theirs):
            guard let base = recipe.sync.base else {
                throw StoreError(.resolution(
                    detail: "the server's copy of recipe \(recipe.id) is not known here; `recipes resolve \(recipe.id) --mine` keeps yours"))
            }
            return (.fields(MergeResult(merged: base, conflicts: [])), ["recipe"], nil)
        }
    }

    /// Writes the chosen `fields` over recipe `id` (see `write(_:to:images:_:)`), in words when the server's image
    /// they name is no longer in this home.
    private static func write(_ fields: RecipeFields, resolving id: Int64, images: ImageLibrary, _ db: Database) throws {
        do {
            _ = try write(fields, to: id, images: images, db)
        } catch let error as StoreError {
            guard case .downloadRefused(let sha256, _) = error.kind else { throw error }
            throw StoreError(.resolution(
                detail: "the server's image \(sha256.prefix(12))… is no longer in this home, so the server's image of "
                    + "recipe \(id) cannot be taken; keep yours (`--mine --field image`), or `image set` another"))
        }
    }

    // MARK: Edits settle conflicts

    /// The conflict of recipe `row` (as `editableRow` read it) and its fields before an edit, when it has a conflict
    /// that can be read: what `markChanged` needs to tell which conflicts the edit settled.
    static func conflictBeforeEdit(_ row: Row, id: Int64, _ db: Database) throws -> (conflict: RecipeConflict, fields: RecipeFields)? {
        guard let text: String = row["conflicts"], let conflict = try? RecipeConflict(storedJSON: text) else { return nil }
        return (conflict, RecipeFields(try fetchRecipe(db, id: id)))
    }

    /// The sync event of an edit of recipe `id`: an ordinary edit, or, for a recipe that was in conflict (`before`),
    /// an edit that settles the conflicts it touched (`RecipeConflict.remaining(afterEditFrom:to:)`).
    static func editEvent(_ id: Int64, settling before: (conflict: RecipeConflict, fields: RecipeFields)?, _ db: Database)
        throws -> RecipeSyncMachine.Event
    {
        guard let before else { return .edited }
        let after = RecipeFields(try fetchRecipe(db, id: id))
        return .editedInConflict(left: before.conflict.remaining(afterEditFrom: before.fields, to: after))
    }
}
