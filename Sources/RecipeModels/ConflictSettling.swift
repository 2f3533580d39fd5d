extension RecipeConflict {
    /// The conflict left after a person edits the draft from `old` to `new` (nil when none is left): setting a
    /// conflicting field settles it, and list conflicts follow their elements to their new places.
    ///
    /// A title, description, yield, keywords or image conflict is settled when that field's value changed. A list
    /// conflict is settled when the edit touches its elements (changes or removes one of mine's elements, or
    /// inserts between two of them), or, for one where mine is empty (removed here), when the edit inserts exactly
    /// at its place or removes across it; any other is renumbered to where its elements now are. The list edit is
    /// read as a longest-common-subsequence diff, as in a merge. A deletion conflict is not settled by an edit.
    public func remaining(afterEditFrom old: RecipeFields, to new: RecipeFields) -> RecipeConflict? {
        guard case .fields(let conflicts) = self else { return self }
        var left: [FieldConflict] = []
        for conflict in conflicts {
            switch conflict.field {
            case .title where old.title == new.title,
                .description where old.description == new.description,
                .recipeYield where old.recipeYield == new.recipeYield,
                .keywords where old.keywords == new.keywords,
                .image where old.image == new.image:
                left.append(conflict)
            case .ingredient, .step:
                guard let list = conflict.field.list else { continue }
                let edits = ListDiff.edits(from: list.elements(of: old), to: list.elements(of: new))
                if let moved = Self.follow(conflict, through: edits, in: list) { left.append(moved) }
            default:
                continue
            }
        }
        let joined = Self.joiningSharedPlaces(left)
        return joined.isEmpty ? nil : .fields(joined)
    }

    /// The list conflict renumbered through `edits` of its list, or nil when an edit touches it.
    static func follow(_ conflict: FieldConflict, through edits: [ListEdit<String>], in list: RecipeList)
        -> FieldConflict?
    {
        let start = (conflict.field.number ?? 1) - 1
        let end = start + conflict.mine.listElements.count
        var shift = 0
        for edit in edits {
            let touches: Bool
            if start == end {
                touches = (edit.isInsertion && edit.lo == start) || (edit.lo < start && start < edit.hi)
            } else {
                touches = max(edit.lo, start) < min(edit.hi, end) || (edit.isInsertion && start < edit.lo && edit.lo < end)
            }
            if touches { return nil }
            if edit.hi <= start { shift += edit.replacement.count - (edit.hi - edit.lo) }
        }
        var moved = conflict
        moved.field = list.field(start + shift + 1)
        return moved
    }

    /// The conflicts with any two of a list that now start at the same place (an edit removed what lay between
    /// them, and the first is empty on this side) joined into one run, as a merge would have joined them.
    static func joiningSharedPlaces(_ conflicts: [FieldConflict]) -> [FieldConflict] {
        var result: [FieldConflict] = []
        for conflict in conflicts {
            if let last = result.last, last.field.list != nil, last.field == conflict.field {
                result[result.count - 1] = FieldConflict(
                    field: last.field,
                    base: .elements(last.base.listElements + conflict.base.listElements),
                    mine: .elements(last.mine.listElements + conflict.mine.listElements),
                    theirs: .elements(last.theirs.listElements + conflict.theirs.listElements))
            } else {
                result.append(conflict)
            }
        }
        return result
    }
}
