import Foundation

/// Which value a person chose for a conflict: this device's or the server's.
public enum ConflictSide: String, Sendable, CaseIterable {
    /// This device's value (`--mine`).
    case mine
    /// The server's value (`--theirs`).
    case theirs
}

/// What `--field NAME` picks among a recipe's conflicts: one field or list place, every place of a list, every
/// nutrition property or every kept property.
public enum ConflictSelector: Sendable, Hashable {
    /// One field or list place, e.g. `title` or `ingredient 3`.
    case field(ConflictField)
    /// Every conflicting place of a list: `ingredients` or `steps`.
    case list(RecipeList)
    /// Every conflicting nutrition property: `nutrition`.
    case nutrition
    /// Every conflicting kept property: `properties`.
    case properties

    /// The selector a name denotes: a field's name (`title`, `cooktime`, `ingredient 3`, `nutrition calories`, …),
    /// `ingredients`, `steps`, `nutrition` or `properties`.
    public init(name: String) throws(ConflictError) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if let list = RecipeList(rawValue: trimmed) {
            self = .list(list)
        } else if trimmed == "nutrition" {
            self = .nutrition
        } else if trimmed == "properties" {
            self = .properties
        } else if let field = ConflictField(name: trimmed) {
            self = .field(field)
        } else {
            throw .unknownField(name)
        }
    }

    /// The name as a person types it.
    public var name: String {
        switch self {
        case .field(let field): field.name
        case .list(let list): list.rawValue
        case .nutrition: "nutrition"
        case .properties: "properties"
        }
    }

    /// Whether the selector picks `field`.
    public func selects(_ field: ConflictField) -> Bool {
        switch (self, field) {
        case (.field(let picked), _): picked == field
        case (.list(let list), _): field.list == list
        case (.nutrition, .nutrition), (.properties, .property): true
        default: false
        }
    }
}

/// Why conflicts could not be resolved, read or stored, in words that say what to do.
public enum ConflictError: Error, Equatable, LocalizedError {
    /// A `--field` name that names no field.
    case unknownField(String)
    /// A field that is not in conflict; with the names of those that are.
    case notInConflict(String, conflicting: [String])
    /// A `--field` given for a recipe deleted on one side, which is resolved whole.
    case deletionIsWhole
    /// The draft's list no longer holds, at a conflict's place, the value the conflict recorded as mine.
    case draftDiffers(String)
    /// The stored conflicts are not in the form `RecipeConflict.storedJSON` writes.
    case unreadable(String)

    /// The message shown to the person.
    public var errorDescription: String? {
        switch self {
        case .unknownField(let name):
            "'\(name)' is not a field; name one of title, description, yield, keywords, preptime, cooktime, totaltime, "
                + "category, cuisine, author, url, tools, diets, image, ingredients, steps, ingredient N, step N, "
                + "nutrition, nutrition KEY, properties or property KEY"
        case .notInConflict(let name, let conflicting) where conflicting.isEmpty:
            "\(name) is not in conflict; no field is"
        case .notInConflict(let name, let conflicting):
            "\(name) is not in conflict; the conflicting fields are: \(conflicting.joined(separator: ", "))"
        case .deletionIsWhole:
            "a recipe deleted on one side is resolved as a whole; leave out the field names"
        case .draftDiffers(let name):
            "the draft's \(name) no longer holds the value its conflict recorded; edit \(name) to settle it"
        case .unreadable(let reason):
            "the stored conflicts cannot be read (\(reason)); resolve the recipe with --mine or --theirs"
        }
    }
}

extension MergeResult {
    /// These merged fields with the chosen conflicts resolved to `side`, and the conflicts left.
    ///
    /// `only` nil or empty resolves every conflict; otherwise the conflicts the selectors pick, each of which must
    /// pick at least one. Resolving to mine keeps the draft's value; to theirs puts the server's value in its place (for a
    /// list place, the server's element or run replaces mine's, which can shift the places after it: the conflicts
    /// left are renumbered to their places in the resulting list).
    public func resolving(to side: ConflictSide, only selectors: [ConflictSelector]? = nil) throws(ConflictError)
        -> MergeResult
    {
        let selectors = selectors?.isEmpty == true ? nil : selectors
        if let selectors {
            for selector in selectors where !conflicts.contains(where: { selector.selects($0.field) }) {
                throw .notInConflict(selector.name, conflicting: conflicts.map(\.field.name))
            }
        }
        let isChosen = { (field: ConflictField) in selectors?.contains { $0.selects(field) } ?? true }
        var fields = merged
        var left: [FieldConflict] = []
        for conflict in conflicts where conflict.field.list == nil {
            guard isChosen(conflict.field) else {
                left.append(conflict)
                continue
            }
            if side == .theirs { conflict.field.set(conflict.theirs, in: &fields) }
        }
        fields.ingredients = try Self.resolve(
            .ingredients, fields.ingredients, conflicts, values: \.listElements, to: side, isChosen: isChosen, left: &left)
        fields.steps = try Self.resolve(
            .steps, fields.steps, conflicts, values: \.stepElements, to: side, isChosen: isChosen, left: &left)
        return MergeResult(merged: fields, conflicts: left.sorted { $0.field < $1.field })
    }

    /// `elements` (the draft's list) with the chosen conflicts of `list` resolved to `side`; the others are added to
    /// `left`, renumbered to their places in the result.
    private static func resolve<Element: Equatable>(
        _ list: RecipeList, _ elements: [Element], _ conflicts: [FieldConflict], values: (ConflictValue) -> [Element],
        to side: ConflictSide, isChosen: (ConflictField) -> Bool, left: inout [FieldConflict]
    ) throws(ConflictError) -> [Element] {
        var elements = elements
        var shift = 0
        for conflict in conflicts where conflict.field.list == list {
            let start = (conflict.field.number ?? 1) - 1 + shift
            let mine = values(conflict.mine)
            guard start >= 0, start + mine.count <= elements.count, Array(elements[start..<(start + mine.count)]) == mine
            else { throw .draftDiffers(conflict.field.name) }
            guard isChosen(conflict.field) else {
                var moved = conflict
                moved.field = list.field(start + 1)
                left.append(moved)
                continue
            }
            if side == .theirs {
                let theirs = values(conflict.theirs)
                elements.replaceSubrange(start..<(start + mine.count), with: theirs)
                shift += theirs.count - mine.count
            }
        }
        return elements
    }
}
