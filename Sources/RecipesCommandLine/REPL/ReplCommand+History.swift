import RecipeModels

extension ReplCommandSpec {
    /// `delete <id> [--verbose]`, `history [<id>] [--deleted] [--json]` and `undo [<id>] [--to <revision>]`.
    func parseHistory(_ arguments: [String], optionsEnd: Int) throws(CommandLineError) -> ReplCommand {
        var flags: Set<String> = []
        var revision: Int64?
        var names: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            guard index <= optionsEnd, options.contains(word) else {
                names.append(word)
                continue
            }
            if word == "--to" {
                guard index < arguments.count, let number = Int64(arguments[index]), number >= 1 else {
                    throw usageError("--to takes a revision number, as `history` lists them")
                }
                revision = number
                index += 1
            } else {
                flags.insert(word)
            }
        }
        guard names.count <= 1 else { throw usageError("name one recipe (quote a title of several words)") }
        let id = try names.first.map { (name: String) throws(CommandLineError) in try Self.recipeID(name) }
        switch name {
        case "delete":
            guard let id else { throw usageError("name the recipe to delete") }
            return .delete(id: id, verbose: flags.contains("--verbose"))
        case "history":
            if flags.contains("--deleted"), id != nil {
                throw usageError("--deleted lists every deleted recipe; leave the recipe out, or --deleted")
            }
            return .history(id: id, deleted: flags.contains("--deleted"), json: flags.contains("--json"))
        default:
            if revision != nil, id == nil { throw usageError("--to needs the recipe whose revision it is") }
            return .undo(id: id, revision: revision, verbose: flags.contains("--verbose"))
        }
    }
}
