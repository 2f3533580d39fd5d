/// What changed between two revisions of a recipe, in the words `recipes history` prints: the fields by name
/// (`title`, `prep time`, `image`), and the lists by place (`2 ingredients added`, `step 3 changed`).
public enum RevisionChanges {
    /// The changes from `old` to `new`, in recipe order; empty when every field is equal.
    public static func between(_ old: RecipeFields, _ new: RecipeFields) -> [String] {
        var changes: [String] = []
        let values: [(String, String, String)] = [
            ("title", old.title, new.title), ("description", old.description, new.description),
            ("yield", old.recipeYield, new.recipeYield), ("keywords", old.keywords, new.keywords),
            ("prep time", old.details.prepTime, new.details.prepTime),
            ("cook time", old.details.cookTime, new.details.cookTime),
            ("total time", old.details.totalTime, new.details.totalTime),
            ("author", old.details.author, new.details.author), ("url", old.details.url, new.details.url),
        ]
        changes += values.filter { $0.1 != $0.2 }.map(\.0)
        let lists: [(String, [String], [String])] = [
            ("category", old.details.recipeCategory, new.details.recipeCategory),
            ("cuisine", old.details.recipeCuisine, new.details.recipeCuisine),
            ("tools", old.details.tool, new.details.tool), ("diets", old.details.suitableForDiet, new.details.suitableForDiet),
        ]
        changes += lists.filter { $0.1 != $0.2 }.map(\.0)
        if old.details.nutrition != new.details.nutrition { changes.append("nutrition") }
        switch (old.image, new.image) {
        case (nil, .some): changes.append("image set")
        case (.some, nil): changes.append("image removed")
        case (.some(let was), .some(let now)) where was != now: changes.append("image")
        default: break
        }
        changes += listChanges(old.ingredients, new.ingredients, singular: "ingredient", plural: "ingredients")
        changes += listChanges(old.steps, new.steps, singular: "step", plural: "steps")
        if old.received.other != new.received.other { changes.append("other properties") }
        return changes
    }

    /// The changes of one list, element by element (`ListDiff`): `ingredient 3 changed` (its place in the old list),
    /// `2 ingredients added`, `ingredient 4 removed`; `ingredients reordered` when only the order changed.
    static func listChanges<Element: Hashable>(
        _ old: [Element], _ new: [Element], singular: String, plural: String
    ) -> [String] {
        guard old != new else { return [] }
        if old.count == new.count, Dictionary(old.map { ($0, 1) }, uniquingKeysWith: +)
            == Dictionary(new.map { ($0, 1) }, uniquingKeysWith: +)
        {
            return ["\(plural) reordered"]
        }
        var changed: [Int] = []
        var added = 0
        var removed: [Int] = []
        for edit in ListDiff.elementEdits(from: old, to: new) {
            let replaced = edit.hi - edit.lo
            if replaced == edit.replacement.count {
                changed += (edit.lo..<edit.hi).map { $0 + 1 }
            } else if replaced == 0 {
                added += edit.replacement.count
            } else if edit.replacement.isEmpty {
                removed += (edit.lo..<edit.hi).map { $0 + 1 }
            } else {
                // A run replaced by a run of another length: the common part changed, the rest added or removed.
                let common = min(replaced, edit.replacement.count)
                changed += (edit.lo..<(edit.lo + common)).map { $0 + 1 }
                if edit.replacement.count > replaced { added += edit.replacement.count - replaced }
                removed += ((edit.lo + common)..<edit.hi).map { $0 + 1 }
            }
        }
        var words: [String] = []
        if !changed.isEmpty { words.append(places(changed, singular, plural) + " changed") }
        if added > 0 { words.append("\(added) \(added == 1 ? singular : plural) added") }
        if !removed.isEmpty { words.append(places(removed, singular, plural) + " removed") }
        return words
    }

    /// `ingredient 3`, `ingredients 2 and 5`, `ingredients 1, 2 and 4`; more than four as a count (`6 ingredients`).
    static func places(_ numbers: [Int], _ singular: String, _ plural: String) -> String {
        switch numbers.count {
        case 1: return "\(singular) \(numbers[0])"
        case 2...4:
            return "\(plural) " + numbers.dropLast().map(String.init).joined(separator: ", ") + " and \(numbers.last!)"
        default: return "\(numbers.count) \(plural)"
        }
    }
}
