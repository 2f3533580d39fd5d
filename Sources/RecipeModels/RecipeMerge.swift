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
/// Title, description, yield, keywords, the times, author, url and image merge as values: changed on one side only,
/// that side's value; the same value on both, that value; changed differently on both, a conflict whose merged value
/// is mine. Images are the same when their SHA-256 is; when both sides have the same image, mine is kept (its local
/// copy). `nutrition` and the properties kept as they came merge per key, each key as a value (a key added or removed
/// is a change of it), a conflict named by its key (`nutrition calories`, `property aggregateRating`). Category,
/// cuisine, tools and diets merge as lists (see `ListMerge`); a list both sides changed in ways that do not pair up
/// is one conflict of the whole field, whose two values are the merge with each side's elements in the places that
/// conflict. Ingredients and steps merge as lists, element by element (see `ListMerge`; a step's section is part of
/// it): an element added on either side is kept where it was added, one changed on one side takes that change, one
/// removed on one side and untouched on the other is removed; elements both sides inserted at the same place are all
/// kept, the server's first, without a conflict; an element changed differently on both sides, or changed on one side
/// and removed on the other, is a conflict ("ingredient 3"), and so is any other run both sides changed in ways that
/// do not pair up element by element (one conflict named by its first place). The merged list keeps mine in every
/// conflict. The merged fields carry theirs' forms of the known properties (the server's copy is the newest writing).
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
        var merged = mine
        merged.received.forms = theirs.received.forms
        for (field, path) in ConflictField.textFields {
            merged[keyPath: path] = value(field, base[keyPath: path], mine[keyPath: path], theirs[keyPath: path], ConflictValue.text, &conflicts)
        }
        for (field, path) in ConflictField.listFields {
            merged[keyPath: path] = list(field, base[keyPath: path], mine[keyPath: path], theirs[keyPath: path], concurrentInserts, &conflicts)
        }
        merged.image = value(.image, base.image, mine.image, theirs.image, { $0.map(ConflictValue.image) ?? .absent }, &conflicts)
        merged.details.nutrition = keyed(
            base.details.nutrition, mine.details.nutrition, theirs.details.nutrition, ConflictField.nutrition, &conflicts)
        merged.received.other = keyed(base.received.other, mine.received.other, theirs.received.other, ConflictField.property, &conflicts)
        let ingredients = flatten(
            ListMerge.merge(base: base.ingredients, mine: mine.ingredients, theirs: theirs.ingredients, concurrentInserts: concurrentInserts),
            list: .ingredients, single: ConflictValue.text, run: ConflictValue.elements)
        merged.ingredients = ingredients.elements
        let steps = flatten(
            ListMerge.merge(base: base.steps, mine: mine.steps, theirs: theirs.steps, concurrentInserts: concurrentInserts),
            list: .steps, single: ConflictValue.single, run: ConflictValue.run)
        merged.steps = steps.elements
        return MergeResult(merged: merged, conflicts: (conflicts + ingredients.conflicts + steps.conflicts).sorted { $0.field < $1.field })
    }

    /// A value merged three ways: one side's change, or a conflict that keeps mine.
    static func value<Value: Equatable>(
        _ field: ConflictField, _ b: Value, _ m: Value, _ t: Value, _ wrap: (Value) -> ConflictValue,
        _ conflicts: inout [FieldConflict]
    ) -> Value {
        if m == t || t == b { return m }
        if m == b { return t }
        conflicts.append(FieldConflict(field: field, base: wrap(b), mine: wrap(m), theirs: wrap(t)))
        return m
    }

    /// A list field merged as a list; where both sides changed it in ways that do not pair up, one conflict whose
    /// values are the merge with mine, and with theirs, in the places that conflict.
    static func list(
        _ field: ConflictField, _ b: [String], _ m: [String], _ t: [String], _ order: ConcurrentInsertOrder,
        _ conflicts: inout [FieldConflict]
    ) -> [String] {
        if m == t || t == b { return m }
        if m == b { return t }
        var withMine: [String] = []
        var withTheirs: [String] = []
        var clean = true
        for segment in ListMerge.merge(base: b, mine: m, theirs: t, concurrentInserts: order) {
            switch segment {
            case .merged(let run):
                withMine += run
                withTheirs += run
            case .conflict(let region):
                clean = false
                withMine += region.mine
                withTheirs += region.theirs
            }
        }
        if !clean {
            conflicts.append(FieldConflict(field: field, base: .elements(b), mine: .elements(withMine), theirs: .elements(withTheirs)))
        }
        return withMine
    }

    /// Texts by key merged key by key, each as a value (absent on a side: removed or never there).
    static func keyed(
        _ b: [String: String], _ m: [String: String], _ t: [String: String], _ field: (String) -> ConflictField,
        _ conflicts: inout [FieldConflict]
    ) -> [String: String] {
        guard m != t, t != b else { return m }
        if m == b { return t }
        var merged: [String: String] = [:]
        for key in Set(b.keys).union(m.keys).union(t.keys).sorted() {
            let wrap = { (text: String?) in text.map(ConflictValue.text) ?? .absent }
            merged[key] = value(field(key), b[key], m[key], t[key], wrap, &conflicts)
        }
        return merged
    }

    /// The merged list (mine in each conflict) and its conflicts, each named by where mine starts in that list.
    static func flatten<Element: Equatable>(
        _ segments: [ListMergeSegment<Element>], list: RecipeList, single: (Element) -> ConflictValue,
        run: ([Element]) -> ConflictValue
    ) -> (elements: [Element], conflicts: [FieldConflict]) {
        var elements: [Element] = []
        var conflicts: [FieldConflict] = []
        for segment in segments {
            switch segment {
            case .merged(let run):
                elements += run
            case .conflict(let region):
                let field = list.field(elements.count + 1)
                if region.isSingleElement {
                    conflicts.append(FieldConflict(
                        field: field, base: region.base.first.map(single) ?? .absent,
                        mine: region.mine.first.map(single) ?? .absent, theirs: region.theirs.first.map(single) ?? .absent))
                } else {
                    conflicts.append(FieldConflict(
                        field: field, base: run(region.base), mine: run(region.mine), theirs: run(region.theirs)))
                }
                elements += region.mine
            }
        }
        return (elements, conflicts)
    }
}
