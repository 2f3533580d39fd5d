import RecipeModels

extension ReplCommandSpec {
    /// `cook <id> [--servings N | --scale F]`, read as `show` reads its scaling; the words from `optionsEnd` on came
    /// after a `--` and are never options.
    func parseCook(_ arguments: [String], optionsEnd: Int) throws(CommandLineError) -> ReplCommand {
        guard arguments.count == 1 || arguments.count == 3 else { throw usageError() }
        let id = try Self.recipeID(arguments[0])
        guard arguments.count == 3 else { return .cook(id: id) }
        guard optionsEnd > 1, arguments[1] == "--servings" || arguments[1] == "--scale" else { throw usageError() }
        guard let number = Double(arguments[2]), number > 0, number.isFinite else {
            throw usageError("\(arguments[1]) takes a number above 0, not \"\(arguments[2])\"")
        }
        return .cook(id: id, scale: arguments[1] == "--servings" ? .servings(number) : .factor(number))
    }
}
