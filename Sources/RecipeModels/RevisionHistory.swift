import Foundation

/// Where a revision of a recipe came from.
public enum RevisionOrigin: String, Sendable, Equatable, CaseIterable {
    /// Created here (`new`).
    case new
    /// Edited here by a command (`title`, `ingredient add`, `edit`, …).
    case edit
    /// Imported from a file or a page.
    case `import`
    /// The server's copy, taken as it was (nothing here to merge with).
    case pull
    /// The server's copy merged with the edits made here.
    case merge
    /// A conflict settled by `resolve`.
    case resolve
    /// An earlier revision brought back by `undo`.
    case undo
    /// Deleted here.
    case delete
    /// Deleted on the server (by another device), and so here.
    case removed
    /// As it was when this device began to keep history (the upgrade that added it).
    case earlier

    /// The words `recipes history` prints, e.g. "pulled from the server".
    public var words: String {
        switch self {
        case .new: "created here"
        case .edit: "edited here"
        case .import: "imported"
        case .pull: "pulled from the server"
        case .merge: "merged with the server's"
        case .resolve: "conflict resolved"
        case .undo: "undo"
        case .delete: "deleted here"
        case .removed: "deleted on the server"
        case .earlier: "as it was when history began"
        }
    }
}

/// One revision of a recipe as this device keeps it: its whole content, where it came from and when.
public struct RevisionEntry: Sendable, Equatable {
    /// The order of the entry among every recipe's (higher is newer).
    public var seq: Int64
    /// The recipe's local id (kept after it is deleted).
    public var recipeID: Int64
    /// The recipe's uuid.
    public var uuid: String
    /// The local revision.
    public var revision: Int64
    /// When it was made.
    public var at: Date
    /// Where it came from.
    public var origin: RevisionOrigin
    /// For an edit, the command that made it, when known.
    public var command: String?
    /// Whether this revision deleted the recipe (`fields` are what it had).
    public var deleted: Bool
    /// The content.
    public var fields: RecipeFields
    /// For an undo, the entry whose content it brought back.
    public var restores: Int64?
    /// For a deletion the server has, its tombstone's version.
    public var tombstone: Int64?

    /// Creates an entry.
    public init(
        seq: Int64, recipeID: Int64, uuid: String, revision: Int64, at: Date, origin: RevisionOrigin,
        command: String? = nil, deleted: Bool = false, fields: RecipeFields, restores: Int64? = nil,
        tombstone: Int64? = nil
    ) {
        self.seq = seq
        self.recipeID = recipeID
        self.uuid = uuid
        self.revision = revision
        self.at = at
        self.origin = origin
        self.command = command
        self.deleted = deleted
        self.fields = fields
        self.restores = restores
        self.tombstone = tombstone
    }

    /// Where it came from, in words: "edited here (ingredient add)", "undo (back to revision 4)".
    public func source(restoredRevision: Int64?) -> String {
        if origin == .edit, let command { return "\(origin.words) (\(command))" }
        if origin == .undo, let restoredRevision { return "undo (back to revision \(restoredRevision))" }
        return origin.words
    }
}

/// Which revision `recipes undo` brings back: a pure decision over a recipe's kept revisions.
///
/// Undo goes back one revision, as a new revision: the content of the newest older revision that differs from what
/// the recipe holds now. A second undo goes back from the revision the first one brought back (not from the undo's
/// own revision), so undoing again walks further back; `--to REVISION` brings back any kept revision, which is also
/// how an undo is itself undone (a redo is `undo --to` the revision before it). A recipe whose newest revision deleted
/// it comes back with the content it had.
public enum UndoDecision {
    /// Why nothing can be brought back.
    public enum Refusal: Error, Sendable, Equatable {
        /// No revision is kept for the recipe.
        case noHistory
        /// Every kept revision older than the one to go back from holds what the recipe holds now.
        case nothingOlder(oldestKept: Int64)
        /// `--to` named a revision that is not kept (`kept`: the lowest and highest kept).
        case unknownRevision(Int64, kept: ClosedRange<Int64>)
        /// `--to` named the revision that deleted the recipe.
        case deletingRevision(Int64)
        /// `--to` named a revision whose content the recipe holds now.
        case alreadyThere(Int64)
    }

    /// The entry whose content undo brings back, from `entries` (one recipe's, oldest first); with `revision`, that
    /// revision's.
    public static func target(in entries: [RevisionEntry], toRevision revision: Int64? = nil) -> Result<RevisionEntry, Refusal> {
        guard let newest = entries.last, let oldest = entries.first else { return .failure(.noHistory) }
        if let revision {
            guard let entry = entries.last(where: { $0.revision == revision }) else {
                return .failure(.unknownRevision(revision, kept: oldest.revision...newest.revision))
            }
            if entry.deleted { return .failure(.deletingRevision(revision)) }
            if !newest.deleted, entry.fields == newest.fields { return .failure(.alreadyThere(revision)) }
            return .success(entry)
        }
        if newest.deleted { return .success(newest) }
        // Back from the revision an undo brought back, while it is kept; else from the newest.
        let start = newest.origin == .undo ? entries.lastIndex { $0.seq == newest.restores } ?? entries.count - 1
            : entries.count - 1
        let older = entries[..<start].reversed()
        guard let entry = older.first(where: { !$0.deleted && $0.fields != newest.fields }) else {
            return .failure(.nothingOlder(oldestKept: oldest.revision))
        }
        return .success(entry)
    }
}
