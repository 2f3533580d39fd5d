/// How long a recipe's lists may grow: far more ingredients and steps than any cook writes, few enough that every
/// list operation — a merge's diff, the recipe card, the search index, the transaction that writes them — stays quick
/// and holds the database's write lock only briefly.
public enum RecipeLimits {
    /// The most ingredients, and the most steps, one recipe keeps.
    public static let listLength = 1_000

    /// The first of `ingredients` and `steps` (counts) over the limit, by the name an edit command uses for it.
    static func overLimit(ingredients: Int, steps: Int) -> (what: String, count: Int)? {
        if ingredients > listLength { return ("ingredients", ingredients) }
        if steps > listLength { return ("steps", steps) }
        return nil
    }
}
