import RecipeModels

extension ReplCommandSpec {
    /// `cook <id> [--servings N | --scale F]`, read as `show` reads its scaling; the words from `optionsEnd` on came
    /// after a `--` and are never options.
    func parseCook(_ arguments: [String], optionsEnd: Int) throws(CommandLineError) -> ReplCommand {
        let (id, scale) = try recipeAndScale(arguments, mayBeOption: { $0 < optionsEnd })
        return .cook(id: id, scale: scale)
    }

    /// `<id> [--servings N | --scale F]` (`show`'s and `cook`'s words): the recipe and the scaling asked for, if any;
    /// `mayBeOption(i)` says whether word `i` came before a `--`.
    func recipeAndScale(
        _ words: [String], mayBeOption: (Int) -> Bool
    ) throws(CommandLineError) -> (RecipeReference, ScaleRequest?) {
        guard words.count == 1 || words.count == 3 else { throw usageError() }
        let id = try Self.recipeID(words[0])
        guard words.count == 3 else { return (id, nil) }
        guard mayBeOption(1), words[1] == "--servings" || words[1] == "--scale" else { throw usageError() }
        guard let number = Double(words[2]), number > 0, number.isFinite else {
            throw usageError("\(words[1]) takes a number above 0, not \"\(words[2])\"")
        }
        return (id, words[1] == "--servings" ? .servings(number) : .factor(number))
    }
}
