/// What a three-way merge gives: the fields to store, and the conflicts a person must settle.
public struct MergeResult: Sendable, Equatable {
    /// The merged fields; where there is a conflict they hold this device's value ("mine").
    public var merged: RecipeFields
    /// The conflicts, in recipe order (see `ConflictField`); empty when the merge is clean.
    public var conflicts: [FieldConflict]

    /// Creates a merge result (also how a stored draft and its stored conflicts are taken up again).
    public init(merged: RecipeFields, conflicts: [FieldConflict]) {
        self.merged = merged
        self.conflicts = conflicts
    }

    /// Whether a person must choose before the recipe can be pushed.
    public var hasConflicts: Bool { !conflicts.isEmpty }
}

/// The three-way merge of two-way sync: base (the server version the draft was edited from), mine (the local
/// draft) and theirs (the server's newer version), field by field.
///
/// Title, description, yield, keywords and image merge as values: changed on one side only, that side's value;
/// the same value on both, that value; changed differently on both, a conflict whose merged value is mine.
/// Images are the same when their SHA-256 is; when both sides have the same image, mine is kept (its local copy).
/// Ingredients and steps merge as lists, element by element (see `ListMerge`): an element added on either side is
/// kept where it was added, one changed on one side takes that change, one removed on one side and untouched on the
/// other is removed; elements both sides inserted at the same place are all kept, the server's first, without a
/// conflict; an element changed differently on both sides, or changed on one and removed on the other, is a
/// conflict ("ingredient 3"), and so is any other run both sides changed in ways that do not pair up element by
/// element (one conflict named by its first place). The merged list keeps mine in every conflict.
///
/// Symmetry: `merge(base:mine: m, theirs: t)` and `merge(base:mine: t, theirs: m)` have the same conflicts in the
/// same order and of the same fields and bases, with mine and theirs swapped (list numbers can differ, as each counts
/// places in its own merged list, which keeps its own side's values). Resolving every conflict of the first to mine
/// and of the second to theirs gives the same fields, except that elements both sides inserted at the same place
/// come out in the opposite order, the server's first in each. So the result never depends on which device merges,
/// except for which value is called mine.
public enum RecipeMerge {
    /// Merges `mine` and `theirs`, both edited from `base`.
    public static func merge(base: RecipeFields, mine: RecipeFields, theirs: RecipeFields) -> MergeResult {
        merge(base: base, mine: mine, theirs: theirs, concurrentInserts: .theirsFirst)
    }

    /// Merges with concurrent inserts in the given order; `.mineFirst` exists to state the symmetry exactly.
    static func merge(
        base: RecipeFields, mine: RecipeFields, theirs: RecipeFields, concurrentInserts: ConcurrentInsertOrder
    ) -> MergeResult {
        var conflicts: [FieldConflict] = []
        func value<Value: Equatable>(
            _ field: ConflictField, _ key: KeyPath<RecipeFields, Value>, _ wrap: (Value) -> ConflictValue
        ) -> Value {
            let (b, m, t) = (base[keyPath: key], mine[keyPath: key], theirs[keyPath: key])
            if m == t || t == b { return m }
            if m == b { return t }
            conflicts.append(FieldConflict(field: field, base: wrap(b), mine: wrap(m), theirs: wrap(t)))
            return m
        }
        var merged = RecipeFields(
            title: value(.title, \.title, ConflictValue.text),
            description: value(.description, \.description, ConflictValue.text),
            recipeYield: value(.recipeYield, \.recipeYield, ConflictValue.text),
            keywords: value(.keywords, \.keywords, ConflictValue.text))
        merged.image = value(.image, \.image) { $0.map(ConflictValue.image) ?? .absent }
        for list in RecipeList.allCases {
            let segments = ListMerge.merge(
                base: list.elements(of: base), mine: list.elements(of: mine), theirs: list.elements(of: theirs),
                concurrentInserts: concurrentInserts)
            let (elements, listConflicts) = flatten(segments, list: list)
            list.set(elements, in: &merged)
            conflicts += listConflicts
        }
        return MergeResult(merged: merged, conflicts: conflicts)
    }

    /// The merged list (mine in each conflict) and its conflicts, each named by where mine starts in that list.
    static func flatten(_ segments: [ListMergeSegment<String>], list: RecipeList) -> ([String], [FieldConflict]) {
        var elements: [String] = []
        var conflicts: [FieldConflict] = []
        for segment in segments {
            switch segment {
            case .merged(let run):
                elements += run
            case .conflict(let region):
                let field = list.field(elements.count + 1)
                if region.isSingleElement {
                    conflicts.append(FieldConflict(
                        field: field, base: region.base.first.map(ConflictValue.text) ?? .absent,
                        mine: region.mine.first.map(ConflictValue.text) ?? .absent,
                        theirs: region.theirs.first.map(ConflictValue.text) ?? .absent))
                } else {
                    conflicts.append(FieldConflict(
                        field: field, base: .elements(region.base), mine: .elements(region.mine),
                        theirs: .elements(region.theirs)))
                }
                elements += region.mine
            }
        }
        return (elements, conflicts)
    }
}
