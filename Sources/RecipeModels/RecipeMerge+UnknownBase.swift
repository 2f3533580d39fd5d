/// Merging when the base is not known (a recipe edited here before this device kept bases, meeting a change made on
/// the server): nothing can say which side changed what, so every field the two sides hold differently is a conflict
/// a person resolves, a list as one run. Nothing is chosen silently.
extension RecipeMerge {
    /// Merges `mine` and `theirs` without a base: equal fields are kept, every other field is a conflict whose draft
    /// value is mine (the forms of the known properties are theirs, as in a merge with a base).
    public static func mergeWithoutBase(mine: RecipeFields, theirs: RecipeFields) -> MergeResult {
        var conflicts: [FieldConflict] = []
        var fields = ConflictField.textFields.map(\.field) + ConflictField.listFields.map(\.field) + [.image]
        fields += Set(mine.details.nutrition.keys).union(theirs.details.nutrition.keys).sorted().map(ConflictField.nutrition)
        fields += Set(mine.received.other.keys).union(theirs.received.other.keys).sorted().map(ConflictField.property)
        for field in fields where field.value(in: mine) != field.value(in: theirs) {
            conflicts.append(FieldConflict(field: field, base: .absent, mine: field.value(in: mine), theirs: field.value(in: theirs)))
        }
        if mine.ingredients != theirs.ingredients {
            conflicts.append(FieldConflict(
                field: .ingredient(1), base: .elements([]), mine: .elements(mine.ingredients),
                theirs: .elements(theirs.ingredients)))
        }
        if mine.steps != theirs.steps {
            conflicts.append(FieldConflict(
                field: .step(1), base: .elements([]), mine: ConflictValue.run(mine.steps), theirs: ConflictValue.run(theirs.steps)))
        }
        var merged = mine
        merged.received.forms = theirs.received.forms
        return MergeResult(merged: merged, conflicts: conflicts.sorted { $0.field < $1.field })
    }
}
