import RecipeModels
import RecipeStore

/// What tab completion offers for the word being typed, decided from the words before it: command names first,
/// then per command its actions (`ingredient set`), recipe ids shown with their titles, field names (`search
/// title:`) and file paths (`import`, `image set`, `export --out`).
enum ReplCompletion: Equatable {
    /// Words to offer; `insert` goes into the line, `display` is what the list of choices shows.
    case words([Candidate], appendSpace: Bool)
    /// File and folder names (libedit's own completion).
    case files
    /// Nothing to offer.
    case nothing

    /// One choice.
    struct Candidate: Equatable {
        var insert: String
        var display: String
    }

    /// The choices for `prefix` after the words `before`; `recipes` lists the ids and titles (asked only when ids
    /// are wanted).
    static func candidates(
        before: [String], prefix: String, recipes: () -> [(id: Int64, title: String)]
    ) -> ReplCompletion {
        guard let command = before.first else {
            return words(ReplCommandSpec.all.map(\.name), prefix)
        }
        let position = before.count  // the word being typed is this argument, 1-based after the command
        func ids() -> ReplCompletion { recipeNames(prefix, recipes()) }
        switch command {
        case "help":
            return position == 1 ? words(ReplCommandSpec.all.map(\.name), prefix) : .nothing
        case "ingredient", "step":
            if position == 1 { return words(["add", "rm", "set", "insert", "move"] + (command == "step" ? ["section"] : []), prefix) }
            return position == 2 ? ids() : .nothing
        case "nutrition":
            if position == 1 { return ids() }
            return position == 2 ? words(NutritionName.properties, prefix) : .nothing
        case "diets":
            if position == 1 { return ids() }
            return words(DietName.known.map(\.name), prefix)
        case "image":
            if position == 1 { return words(["set", "clear"], prefix) }
            if position == 2 { return ids() }
            return position == 3 && before[1] == "set" ? .files : .nothing
        case "resolve":
            if position == 1 { return ids() }
            if position == 2 { return words(ConflictSide.allCases.map(\.rawValue), prefix) }
            return words(["title", "description", "yield", "keywords", "preptime", "cooktime", "totaltime", "category",
                          "cuisine", "author", "url", "tools", "diets", "image", "ingredients", "steps", "ingredient", "step",
                          "nutrition", "properties", "property"], prefix)
        case "show", "cook", "title", "description", "yield", "keywords", "delete", "edit", "cancel", "preptime", "cooktime",
             "totaltime", "category", "cuisine", "author", "url", "tools", "history", "undo":
            return position == 1 ? ids() : .nothing
        case "status", "sync":
            return ids()
        case "export":
            if before.last == "--out" { return .files }
            if before.last == "--format" { return words(ExportFormat.allCases.map(\.rawValue), prefix) }
            return prefix.hasPrefix("-") ? words(["--out", "--format"], prefix) : ids()
        case "import":
            return prefix.hasPrefix("-") ? words(["--dry-run", "--as-new", "--url"], prefix) : .files
        case "search":
            guard !prefix.contains(":") else { return .nothing }
            let fields = SearchField.allCases.map { $0.rawValue + ":" }
            let matching = fields.filter { $0.hasPrefix(prefix.lowercased()) }
            return matching.isEmpty ? .nothing : .words(matching.map { Candidate(insert: $0, display: $0) }, appendSpace: false)
        default:
            return .nothing
        }
    }

    /// The recipes `prefix` may name: by id when it is digits (or nothing yet), by title otherwise (a title that is
    /// or starts with it, case and accents aside, inserted whole and quoted when it holds more than letters and
    /// digits); each shown as its id and title.
    static func recipeNames(_ prefix: String, _ all: [(id: Int64, title: String)]) -> ReplCompletion {
        let width = all.map { String($0.id).count }.max() ?? 0
        func display(_ recipe: (id: Int64, title: String)) -> String {
            let id = String(recipe.id)
            return String(repeating: " ", count: width - id.count) + id + "  " + TerminalText.clean(recipe.title)
        }
        let byID = prefix.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        let matching = byID
            ? all.filter { String($0.id).hasPrefix(prefix) }
            : all.filter { TitleMatch.starts($0.title, with: prefix) }
        guard !matching.isEmpty else { return .nothing }
        return .words(matching.map { recipe in
            Candidate(insert: byID ? String(recipe.id) : quoted(recipe.title), display: display(recipe))
        }, appendSpace: true)
    }

    /// `title` as one word of a REPL line (`LineSplitter`): as it is when it holds only letters, digits and `-._`,
    /// else in double quotes, with `"` and `\\` escaped.
    static func quoted(_ title: String) -> String {
        let plain = !title.isEmpty && title.allSatisfy { $0.isLetter || $0.isNumber || "-._".contains($0) }
        if plain { return title }
        return "\"" + title.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func words(_ names: [String], _ prefix: String) -> ReplCompletion {
        let matching = names.filter { $0.hasPrefix(prefix) }
        return matching.isEmpty ? .nothing : .words(matching.map { Candidate(insert: $0, display: $0) }, appendSpace: true)
    }

    /// The longest text every candidate's `insert` starts with.
    static func commonPrefix(_ candidates: [Candidate]) -> String {
        guard var common = candidates.first?.insert else { return "" }
        for candidate in candidates.dropFirst() {
            while !candidate.insert.hasPrefix(common) { common.removeLast() }
        }
        return common
    }
}
