/// Why a recipe is in `conflict`: fields changed on both sides, or a deletion on one side against a change on the
/// other. This is what the store keeps (as `storedJSON`) until a person resolves it.
public enum RecipeConflict: Sendable, Equatable {
    /// Fields (or list places) changed differently here and on the server; the draft keeps mine in each.
    case fields([FieldConflict])
    /// The server deleted the recipe; this device changed it.
    case deletedOnServer
    /// This device deleted the recipe; the server changed it.
    case deletedHere

    /// The conflict in words, for `status`'s `blocked` and `recipes conflicts`: "changed here and on the server:
    /// title, ingredient 3", "deleted on the server, changed here" or "deleted here, changed on the server".
    public var summary: String {
        switch self {
        case .fields(let conflicts):
            "changed here and on the server: " + conflicts.map(\.field.name).joined(separator: ", ")
        case .deletedOnServer:
            "deleted on the server, changed here"
        case .deletedHere:
            "deleted here, changed on the server"
        }
    }

    /// `status`'s `blocked` text for the recipe with local id `id`: the summary and how to resolve it, e.g.
    /// "changed here and on the server: title — `recipes resolve 4 --mine` or `--theirs`" (in `dialect`'s words).
    public func blocked(id: Int64, dialect: CommandDialect = .shell) -> String {
        "\(summary) — \(dialect.resolve(id))"
    }

    /// The `conflicts` array of `status --json`: one `{"field","mine","theirs"}` per conflict.
    ///
    /// A text field or one list element is a JSON string (a step in a section as `[Section] text`); an image is its
    /// SHA-256 as a string; a run of list elements (a conflict over several places) and a list field are arrays of
    /// strings on both sides, empty for a side that removed it; a removed element, an absent image, nutrition or
    /// kept property is null. A deletion conflict is one entry with the field
    /// `recipe`, the side that changed it `"changed"` and the side that deleted it null.
    public var statusEntries: [ConflictEntry] {
        switch self {
        case .fields(let conflicts):
            conflicts.map { ConflictEntry(field: $0.field.name, mine: .init($0.mine), theirs: .init($0.theirs)) }
        case .deletedOnServer:
            [ConflictEntry(field: "recipe", mine: .text("changed"), theirs: .null)]
        case .deletedHere:
            [ConflictEntry(field: "recipe", mine: .null, theirs: .text("changed"))]
        }
    }

    /// Resolves the conflict to `side`, all of it or the fields `only` picks, given the stored draft `draft`.
    ///
    /// Field conflicts resolve as `MergeResult.resolving(to:only:)` says. A deletion conflict is resolved as a
    /// whole (field names are refused; none or an empty list is the whole): deleted on the server, mine re-creates the recipe there from the draft and
    /// theirs removes it here; deleted here, mine sends the deletion and theirs restores the server's copy.
    public func resolve(draft: RecipeFields, to side: ConflictSide, only selectors: [ConflictSelector]? = nil)
        throws(ConflictError) -> ConflictResolution
    {
        switch self {
        case .fields(let conflicts):
            return .fields(try MergeResult(merged: draft, conflicts: conflicts).resolving(to: side, only: selectors))
        case .deletedOnServer, .deletedHere:
            if let selectors, !selectors.isEmpty { throw .deletionIsWhole }
            switch (self, side) {
            case (.deletedOnServer, .mine): return .recreateOnServer
            case (.deletedOnServer, .theirs): return .removeHere
            case (_, .mine): return .deleteOnServer
            case (_, .theirs): return .restoreFromServer
            }
        }
    }
}

/// What resolving a recipe's conflict asks the store and sync to do.
public enum ConflictResolution: Sendable, Equatable {
    /// Store these fields as the draft; the recipe stays in `conflict` while conflicts are left, and is otherwise
    /// pending, based on the server version it was merged against.
    case fields(MergeResult)
    /// Deleted on the server, kept here: push the draft again, as the tombstone's version + 1.
    case recreateOnServer
    /// Deleted on the server, and that is chosen: remove the recipe here, its files too.
    case removeHere
    /// Deleted here, and that is chosen: send the deletion (the recipe stays `deleting`).
    case deleteOnServer
    /// Deleted here, the server's copy chosen: undo the deletion and take the server's fields.
    case restoreFromServer
}

/// One element of the `conflicts` array of `status --json`: `{"field","mine","theirs"}`, nulls included.
public struct ConflictEntry: Sendable, Equatable, Encodable {
    /// A value as it appears in the JSON.
    public enum Value: Sendable, Equatable, Encodable {
        /// JSON null: removed, or no image.
        case null
        /// A JSON string.
        case text(String)
        /// A JSON array of strings.
        case list([String])

        /// The JSON form of a conflict value (see `RecipeConflict.statusEntries`).
        init(_ value: ConflictValue) {
            switch value {
            case .absent: self = .null
            case .text(let text): self = .text(text)
            case .image(let image): self = .text(image.sha256)
            case .elements(let elements): self = .list(elements)
            case .step(let step): self = .text(step.description)
            case .steps(let steps): self = .list(steps.map(\.description))
            }
        }

        /// Encodes the value as a bare JSON null, string or array.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .text(let text): try container.encode(text)
            case .list(let list): try container.encode(list)
            }
        }
    }

    /// The field's name, e.g. `title`, `ingredient 3`, or `recipe` for a deletion conflict.
    public var field: String
    /// This device's value.
    public var mine: Value
    /// The server's value.
    public var theirs: Value

    /// Creates an entry.
    public init(field: String, mine: Value, theirs: Value) {
        self.field = field
        self.mine = mine
        self.theirs = theirs
    }
}
