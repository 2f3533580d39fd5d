extension RecipeConflict {
    /// The conflict left after a person edits the draft from `old` to `new` (nil when none is left): setting a
    /// conflicting field settles it, and list conflicts follow their elements to their new places.
    ///
    /// A conflict of a value field (title, a time, a list field, the image, a nutrition or kept property) is settled
    /// when that field's value changed. A list
    /// conflict is settled when the edit touches its elements (changes or removes one of mine's elements, or
    /// inserts between two of them), or, for one where mine is empty (removed here), when the edit inserts exactly
    /// at its place or removes across it; any other is renumbered to where its elements now are. The list edit is
    /// read as a longest-common-subsequence diff, as in a merge. A deletion conflict is not settled by an edit.
    public func remaining(afterEditFrom old: RecipeFields, to new: RecipeFields) -> RecipeConflict? {
        guard case .fields(let conflicts) = self else { return self }
        var left: [FieldConflict] = []
        for conflict in conflicts {
            switch conflict.field {
            case .ingredient:
                let edits = ListDiff.edits(from: old.ingredients, to: new.ingredients)
                if let moved = Self.follow(conflict, through: edits, in: .ingredients) { left.append(moved) }
            case .step:
                let edits = ListDiff.edits(from: old.steps, to: new.steps)
                if let moved = Self.follow(conflict, through: edits, in: .steps) { left.append(moved) }
            case let field where field.value(in: old) == field.value(in: new):
                left.append(conflict)
            default:
                continue
            }
        }
        let joined = Self.joiningSharedPlaces(left)
        return joined.isEmpty ? nil : .fields(joined)
    }

    /// The list conflict renumbered through `edits` of its list, or nil when an edit touches it.
    static func follow<Element>(_ conflict: FieldConflict, through edits: [ListEdit<Element>], in list: RecipeList)
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
            if let last = result.last, let list = last.field.list, last.field == conflict.field {
                func joined(_ first: ConflictValue, _ second: ConflictValue) -> ConflictValue {
                    list == .steps ? ConflictValue.run(first.stepElements + second.stepElements)
                        : .elements(first.listElements + second.listElements)
                }
                result[result.count - 1] = FieldConflict(
                    field: last.field, base: joined(last.base, conflict.base), mine: joined(last.mine, conflict.mine),
                    theirs: joined(last.theirs, conflict.theirs))
            } else {
                result.append(conflict)
            }
        }
        return result
    }
}
