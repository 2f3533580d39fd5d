import Foundation
import GRDB
import RecipeModels

/// Where this home has read the server's changes feed to.
public struct FeedCursor: Sendable, Equatable {
    /// The id of the server the cursor belongs to; nil before the first pull.
    public var server: String?
    /// The sequence number of the last change applied.
    public var seq: Int64

    public init(server: String?, seq: Int64) {
        self.server = server
        self.seq = seq
    }
}

/// One change of a page as the pull applies it.
public struct PulledChange: Sendable, Equatable {
    /// The recipe it concerns.
    public var uuid: UUID
    /// The server's copy.
    public var copy: ServerCopy
    /// Its sequence number.
    public var seq: Int64

    public init(uuid: UUID, copy: ServerCopy, seq: Int64) {
        self.uuid = uuid
        self.copy = copy
        self.seq = seq
    }
}

/// What the pull of one change did.
public struct AppliedChange: Sendable, Equatable {
    /// The recipe's local id (nil when it is gone here, or was never here).
    public var id: Int64?
    /// The recipe it concerns.
    public var uuid: UUID
    /// Its title now (or the server's, for a recipe removed).
    public var title: String
    /// What applying it did.
    public var outcome: ServerCopyOutcome
}

/// What `RecipeStore.leaseForPull` leased.
public struct PullLeases: Sendable, Equatable {
    /// How many of the changes may be applied now: all, or up to the first recipe another live process holds.
    public var applicable: Int
    /// The changes among those whose image this home lacks: a download must come first.
    public var imagesNeeded: Set<UUID>
    /// The local id of each change's recipe that this home has, as read while leasing (a recipe new here has none).
    public var localIDs: [UUID: Int64]
}

/// What a push that the server answered `412` comes to, once the server's copy is merged in (see
/// `RecipeStore.mergeAfterStale`).
public enum StaleMerge: Sendable, Equatable {
    /// The merge must go to the server: push this claim (the recipe at its new revision, based on the server's
    /// version).
    case push(SyncClaim)
    /// The server has the draft already: synced at that version, nothing to push.
    case synced(revision: Int64, version: Int64, base: RecipeFields)
    /// A person must choose.
    case conflict(RecipeConflict)
    /// The server's copy breaks the store's rules (why, in words): nothing was changed, nothing can be pushed over it.
    case refused(String)
    /// The recipe is gone (deleted on the server and not changed here), or this process no longer holds its lease.
    case gone
}

extension RecipeStore {
    /// The feed cursor.
    public func feedCursor() throws(StoreError) -> FeedCursor {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT server_id, seq FROM sync_cursor WHERE id = 1")
            return FeedCursor(server: row?["server_id"], seq: row?["seq"] ?? 0)
        }
    }

    /// Starts reading the feed of server `server` from the beginning (the first pull, or another or a reset server).
    /// For a server other than the one the cursor belonged to, every recipe forgets its base and what the old server
    /// had of its image: a full pass of the new server's feed re-bases the recipes it lists, and `finishServerChange`
    /// then uploads the others as new, images first.
    public func startFeed(of server: String) throws(StoreError) {
        try write { db in
            let previous = try String.fetchOne(db, sql: "SELECT server_id FROM sync_cursor WHERE id = 1")
            try db.execute(sql: "UPDATE sync_cursor SET server_id = ?, seq = 0 WHERE id = 1", arguments: [server])
            // The feed is read again from its start: what an earlier pass went past comes again (or is gone).
            try db.execute(sql: "DELETE FROM pull_to_come")
            if previous != nil, previous != server {
                try db.execute(sql: """
                    UPDATE recipes SET server_version = NULL, base_fields = NULL, conflicts = NULL,
                        remote_image_sha256 = NULL, remote_image_url = NULL
                    """)
            }
        }
    }

    /// The recipes a new server's full pass still owes an upload as new: synced to the server before, forgotten by
    /// `startFeed` in the transaction that stored the new server's id, and not listed by its feed since. Until the
    /// pass ends they say so (`isOwedToNewServer`), whatever interrupted it: a later pull finishes the pass.
    static let owedToNewServer = "server_version IS NULL AND synced_revision > 0 AND (state = 'synced' OR deleted = 1)"

    /// Whether a new server's full pass is still owed (see `owedToNewServer`): the next complete pull ends it.
    public func owesServerChange() throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE \(Self.owedToNewServer))") ?? false
        }
    }

    /// After a full pass of a new server's feed (in this run or, when a run was interrupted, over several): the
    /// recipes it did not list (still without a server version) are uploaded again as new; deletions of recipes it
    /// never had are done here.
    public func finishServerChange() throws(StoreError) {
        try write { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM recipes WHERE \(Self.owedToNewServer)")
            for id in ids {
                guard let recipe = try Self.storedRecipe(id, db) else { continue }
                if recipe.sync.deleted {
                    try db.execute(sql: "DELETE FROM recipes WHERE id = ?", arguments: [id])
                } else {
                    try Self.apply(.edited, to: id, db)
                }
            }
        }
    }

    /// Leases, for a pull, the recipes of `changes` that exist here and are older here than the change, in order, up
    /// to the first one another live process holds. A change this home has already (its own upload, seen in the
    /// feed) needs no lease and no download.
    public func leaseForPull(
        _ changes: [PulledChange], owner: String, now: Date, leaseDuration: TimeInterval,
        isOwnerAlive: @escaping (String) -> Bool
    ) throws(StoreError) -> PullLeases {
        try write { db in
            let claim = RecipeSyncMachine.Event.claimed(owner: owner, now: now, leaseDuration: leaseDuration, explicit: false)
            var imagesNeeded: Set<UUID> = []
            var localIDs: [UUID: Int64] = [:]
            for (index, change) in changes.enumerated() {
                let local = try Self.localCopy(of: change, db)
                if local?.hasChange == true || Self.refusal(of: change.copy) != nil { continue }  // nothing to apply
                let id = local?.id
                if let id { localIDs[change.uuid] = id }
                let recipe = try id.flatMap { id throws in try Self.storedRecipe(id, db) }
                if let known = recipe?.sync.serverVersion, change.copy.version <= known { continue }
                if case .live(_, let fields) = change.copy, let image = fields.image, recipe?.image?.sha256 != image.sha256,
                   images.image(sha256: image.sha256) == nil {
                    imagesNeeded.insert(change.uuid)
                }
                guard let id, let recipe else { continue }
                if Self.busyElsewhere(recipe, owner: owner, now: now, isOwnerAlive: isOwnerAlive) != nil {
                    return PullLeases(applicable: index, imagesNeeded: imagesNeeded, localIDs: localIDs)
                }
                if recipe.sync.leaseOwner == owner { continue }
                try Self.apply(claim, to: id, known: SyncRecord(sync: recipe.sync, image: recipe.image), db)
            }
            return PullLeases(applicable: changes.count, imagesNeeded: imagesNeeded, localIDs: localIDs)
        }
    }

    /// Applies `changes` (one page of the feed, or its first part) and moves the cursor to `seq`, in one transaction: a
    /// pull killed at any moment re-applies at most this page.
    ///
    /// The leases `owner` holds on the recipes of `releasing` (the whole page, applied or not) are released in the
    /// same transaction; its other leases (the next page's, leased while this one was downloading) stay. `toCome` are
    /// the page's changes the pull goes past without applying them (`PullToCome`); the cursor stays before them.
    public func applyPage(
        _ changes: [PulledChange], through seq: Int64, owner: String, releasing: [UUID], toCome: [PullToCome] = []
    ) throws(StoreError) -> [AppliedChange] {
        let now = self.now()
        return try write { db in
            var applied: [AppliedChange] = []
            for change in changes {
                // This home's own uploads come back through the feed: one look at the version skips them.
                if let id = try Self.recipeHaving(change, db) {
                    applied.append(AppliedChange(id: id, uuid: change.uuid, title: "", outcome: .unchanged))
                    continue
                }
                let (id, outcome) = try Self.applyServerCopy(change.copy, uuid: change.uuid, images: images, now: now, db)
                try Self.noteServerOrigin(outcome, copy: change.copy, id: id, db)
                var title = ""
                if let id {
                    title = try String.fetchOne(
                        db.cachedStatement(sql: "SELECT title FROM recipes WHERE id = ?"), arguments: [id]) ?? ""
                }
                if case .live(_, let fields) = change.copy, id == nil { title = fields.title }
                applied.append(AppliedChange(id: id, uuid: change.uuid, title: title, outcome: outcome))
            }
            let leased = try db.cachedStatement(sql: "SELECT id FROM recipes WHERE uuid = ? AND lease_owner = ?")
            for uuid in releasing {
                guard let id = try Int64.fetchOne(leased, arguments: [uuid.lowercasedString, owner]) else { continue }
                try Self.apply(.leaseReleased(owner: owner), to: id, db)
            }
            try db.execute(sql: "UPDATE sync_cursor SET seq = max(seq, ?) WHERE id = 1", arguments: [seq])
            try Self.recordPullsToCome(applied: changes, toCome: toCome, db)
            return applied
        }
    }

    /// The recipe that already has `change`, if one does (see `localCopy(of:_:)`).
    static func recipeHaving(_ change: PulledChange, _ db: Database) throws -> Int64? {
        try localCopy(of: change, db).flatMap { $0.hasChange ? $0.id : nil }
    }

    /// This home's recipe of `change`'s uuid, if there is one, and whether it already has the change: it is based on
    /// that server version or a later one and knows the base's fields (a home migrated from before two-way sync still
    /// learns them from the copy at its own version). Read from three columns, without decoding the recipe.
    static func localCopy(of change: PulledChange, _ db: Database) throws -> (id: Int64, hasChange: Bool)? {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, server_version, base_fields IS NOT NULL FROM recipes WHERE uuid = ?"),
            arguments: [change.uuid.lowercasedString])
        guard let row else { return nil }
        let version = change.copy.version
        let hasChange = (row[1] as Int64?).map { known in version < known || (version == known && row[2] as Bool) }
        return (row[0], hasChange ?? false)
    }

    /// Makes recipe `claim` one to send as new (`If-None-Match: *`): the server its base was on does not have it (a
    /// reset or another server). Returns the claim to push.
    public func pushAsNew(_ claim: SyncClaim, owner: String) throws(StoreError) -> SyncClaim {
        try write { db in
            let event = RecipeSyncMachine.Event.merged(
                version: nil, base: nil, outcome: .pending, fieldsChanged: false, deleted: claim.isDeletion)
            try Self.apply(event, to: claim.recipe.id, db)
            var recipe = try Self.fetchRecipe(db, id: claim.recipe.id)
            recipe.sync.leaseOwner = owner
            return SyncClaim(recipe: recipe)
        }
    }

    /// Merges the server's copy into recipe `claim`, whose push the server answered `412` (another device wrote
    /// first), while `owner` holds its lease: `push` the merge, or it is `synced` already, or a `conflict`.
    public func mergeAfterStale(_ claim: SyncClaim, copy: ServerCopy, owner: String) throws(StoreError) -> StaleMerge {
        let now = self.now()
        return try write { db in
            guard let stored = try Self.storedRecipe(claim.recipe.id, db), stored.sync.leaseOwner == owner else {
                return .gone
            }
            let (id, outcome) = try Self.applyServerCopy(copy, uuid: claim.recipe.uuid, images: images, now: now, db)
            try Self.noteServerOrigin(outcome, copy: copy, id: id, db)
            guard let id else { return .gone }
            var recipe = try Self.fetchRecipe(db, id: id)
            switch outcome {
            case .conflict(let conflict):
                return .conflict(conflict)
            case .removed:
                return .gone
            case .refused(let reason):
                return .refused(reason)
            default:
                if recipe.sync.state == .synced, let version = recipe.sync.serverVersion, let base = recipe.sync.base {
                    return .synced(revision: recipe.sync.revision, version: version, base: base)
                }
                recipe.sync.leaseOwner = owner
                return .push(SyncClaim(recipe: recipe))
            }
        }
    }
}
