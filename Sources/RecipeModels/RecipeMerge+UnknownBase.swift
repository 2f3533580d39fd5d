/// Merging when the base is not known (a recipe edited here before this device kept bases, meeting a change made on
/// the server): nothing can say which side changed what, so every field the two sides hold differently is a conflict
/// a person resolves, a list as one run. Nothing is chosen silently.
extension RecipeMerge {
    /// Merges `mine` and `theirs` without a base: equal fields are kept, every other field is a conflict whose draft
    /// value is mine.
    public static func mergeWithoutBase(mine: RecipeFields, theirs: RecipeFields) -> MergeResult {
        var conflicts: [FieldConflict] = []
        func text(_ field: ConflictField, _ mine: String, _ theirs: String) {
            guard mine != theirs else { return }
            conflicts.append(FieldConflict(field: field, base: .absent, mine: .text(mine), theirs: .text(theirs)))
        }
        text(.title, mine.title, theirs.title)
        text(.description, mine.description, theirs.description)
        text(.recipeYield, mine.recipeYield, theirs.recipeYield)
        text(.keywords, mine.keywords, theirs.keywords)
        if mine.image != theirs.image {
            conflicts.append(FieldConflict(
                field: .image, base: .absent, mine: mine.image.map(ConflictValue.image) ?? .absent,
                theirs: theirs.image.map(ConflictValue.image) ?? .absent))
        }
        if mine.ingredients != theirs.ingredients {
            conflicts.append(FieldConflict(
                field: .ingredient(1), base: .elements([]), mine: .elements(mine.ingredients),
                theirs: .elements(theirs.ingredients)))
        }
        if mine.steps != theirs.steps {
            conflicts.append(FieldConflict(
                field: .step(1), base: .elements([]), mine: .elements(mine.steps), theirs: .elements(theirs.steps)))
        }
        return MergeResult(merged: mine, conflicts: conflicts)
    }
}
