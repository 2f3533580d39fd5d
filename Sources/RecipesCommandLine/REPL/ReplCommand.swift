import RecipeModels
import RecipeStore

/// One parsed REPL command, ready to run.
public enum ReplCommand: Equatable, Sendable {
    case new(title: String)
    case list
    /// `show <id> [--servings N | --scale F] [--details]`.
    case show(id: RecipeReference, scale: ScaleRequest? = nil, details: Bool = false)
    /// A change applied as it is (`image set` is `setImage`, whose file is staged first).
    case edit(id: RecipeReference, RecipeChange)
    /// `image set`: the file is checked and copied when the command runs.
    case setImage(id: RecipeReference, path: String)
    /// `delete <id> [--verbose]`: `verbose` says what it did also when standard output is no terminal.
    case delete(id: RecipeReference, verbose: Bool = false)
    /// `history [<id>] [--deleted] [--json]`: a recipe's revisions here, the newest changes of all, or the deleted ones.
    case history(id: RecipeReference?, deleted: Bool, json: Bool)
    /// `undo [<id>] [--to <revision>] [--verbose]`: an earlier revision's content as a new one (no id: the last change).
    case undo(id: RecipeReference?, revision: Int64?, verbose: Bool = false)
    case status(ids: [RecipeReference])
    /// `sync [<id>...]`: as `recipes sync`, in the foreground.
    case sync(ids: [RecipeReference])
    /// `sync [<id>...] &` or `sync --background [<id>...]`: the same sync as a background job; the prompt returns.
    case backgroundSync(ids: [RecipeReference])
    /// `cancel <id>`: as `recipes cancel`.
    case cancel(id: RecipeReference)
    /// `cancel %<job>`: stops a whole background job, as Ctrl-C stops a foreground sync.
    case cancelJob(Int)
    /// `jobs`: the background jobs of this session.
    case jobs
    /// `wait`: waits for the background job to end.
    case wait
    /// `edit <id>`: the recipe in the person's text editor.
    case editInEditor(id: RecipeReference)
    /// `edit <id> --from <file>`: a recipe card applied as the editor's save applies it.
    case applyCard(id: RecipeReference, path: String)
    /// `search <words>`: as `recipes search`.
    case search(words: [String])
    /// `cook <id> [--servings N | --scale F]`: as `recipes cook`, one step at a time on a terminal.
    case cook(id: RecipeReference, scale: ScaleRequest? = nil)
    /// `import [--dry-run] [--as-new] <file|url>...`: as `recipes import`.
    case importFiles(paths: [String], dryRun: Bool, asNew: Bool = false)
    /// `export [<id>...] [--out <dir>] [--format jsonld|markdown]`: as `recipes export`.
    case export(ids: [RecipeReference], folder: String?, format: ExportFormat = .jsonld)
    /// `conflicts`: as `recipes conflicts`.
    case conflicts
    /// `resolve <id> mine|theirs [<field>...]`: as `recipes resolve`, the fields as `--field` names them.
    case resolve(id: RecipeReference, side: ConflictSide, fields: [String])
    case help(topic: String?)
    case quit

    /// Parses the words of one line, or throws a message saying what is wrong and the command's usage (written as
    /// `dialect` types it: `title <id> <text>` in the REPL, `recipes title <id> <text>` at a shell).
    public static func parse(_ words: [String], dialect: CommandDialect = .repl) throws(CommandLineError) -> ReplCommand {
        guard let name = words.first else { throw CommandLineError("empty command") }
        let arguments = Array(words.dropFirst())
        guard let spec = ReplCommandSpec.named(name) else {
            throw CommandLineError(CommandSuggestion.unknownCommand(name, among: ReplCommandSpec.all.map(\.name), dialect: .repl))
        }
        do throws(CommandLineError) {
            let end = arguments.firstIndex(of: "--")
            let before = arguments[..<(end ?? arguments.endIndex)]
            if let index = before.firstIndex(where: { Self.looksLikeOption($0) && !spec.options.contains($0) }) {
                throw CommandLineError(Self.notAnOption(arguments[index], of: spec, words: arguments, at: index, dialect: dialect))
            }
            guard let end else { return try spec.parse(arguments, optionsEnd: arguments.count) }
            var text = arguments
            text.remove(at: end)
            return try spec.parse(text, optionsEnd: end)
        } catch {
            guard dialect == .shell else { throw error }
            throw CommandLineError(error.message.replacingOccurrences(of: "usage: ", with: "usage: recipes ")
                .replacingOccurrences(of: " | ", with: " | recipes "))
        }
    }
}

/// The name, usage and summary of a REPL command; the table `help` prints and tab completion offers.
public struct ReplCommandSpec: Sendable {
    /// The command's first word.
    public var name: String
    /// How it is called, e.g. `title <id> <text>`.
    public var usage: String
    /// What it does, in one line.
    public var summary: String
    /// The options it takes: words written as options (`ReplCommand.looksLikeOption`) before a `--`. Any other such
    /// word is refused (a typed option is not text: `yield 5 --servings 4` must not store "--servings 4").
    public var options: [String] {
        switch name {
        case "show": ["--servings", "--scale", "--details"]
        case "edit": ["--from"]
        case "import": ["--dry-run", "--as-new"]
        case "export": ["--out", "--format"]
        case "sync": ["--background"]
        case "cook": ["--servings", "--scale"]
        case "delete": ["--verbose"]
        case "history": ["--deleted", "--json"]
        case "undo": ["--to", "--verbose"]
        default: []
        }
    }
    /// Whether it is also a command of its own at a shell prompt, `recipes <name> …` with the same words and checks
    /// (the editing commands; the others already are, or only make sense inside the REPL).
    public var oneShot = false

    /// Every REPL command, in the order `help` lists them.
    public static let all: [ReplCommandSpec] = [
        .init(name: "new", usage: "new <title>", summary: "create a recipe; prints its id", oneShot: true),
        .init(name: "list", usage: "list", summary: "one row per recipe: id, state, revision, title"),
        .init(name: "show", usage: "show <id> [--servings N | --scale F] [--details]",
              summary: "the recipe as a cook reads it, scaled to N servings or by F; --details: every field and the sync state"),
        .init(name: "title", usage: "title <id> <text>", summary: "set the name", oneShot: true),
        .init(name: "description", usage: "description <id> <text>", summary: "set the description (\"\" clears)", oneShot: true),
        .init(name: "yield", usage: "yield <id> <text>", summary: "set the yield, e.g. \"4 servings\"", oneShot: true),
        .init(name: "keywords", usage: "keywords <id> <text>", summary: "set comma-separated keywords", oneShot: true),
        .init(name: "preptime", usage: "preptime <id> <time>",
              summary: "set the preparation time, e.g. 15m, \"1h 30m\", \"90 min\" or PT1H30M (\"\" clears)", oneShot: true),
        .init(name: "cooktime", usage: "cooktime <id> <time>", summary: "set the cooking time, written as for preptime", oneShot: true),
        .init(name: "totaltime", usage: "totaltime <id> <time>", summary: "set the total time, written as for preptime", oneShot: true),
        .init(name: "category", usage: "category <id> <text>", summary: "set comma-separated categories, e.g. \"Soup, Starter\"", oneShot: true),
        .init(name: "cuisine", usage: "cuisine <id> <text>", summary: "set comma-separated cuisines, e.g. Italian", oneShot: true),
        .init(name: "author", usage: "author <id> <name>", summary: "set the author (\"\" clears)", oneShot: true),
        .init(name: "url", usage: "url <id> <address>", summary: "set the page the recipe came from, http(s)://… (\"\" clears)", oneShot: true),
        .init(name: "tools", usage: "tools <id> <text>", summary: "set comma-separated tools, e.g. \"Blender, Loaf tin\"", oneShot: true),
        .init(name: "diets", usage: "diets <id> <text>",
              summary: "set comma-separated diets: vegan, vegetarian, gluten-free, … (schema.org's) or your own words", oneShot: true),
        .init(name: "nutrition", usage: "nutrition <id> <property> <text>",
              summary: "set a nutrition property, e.g. calories \"240 kcal\" or fat \"9 g\" (\"\" removes it)", oneShot: true),
        .init(name: "edit", usage: "edit <id> | edit <id> --from <file>",
              summary: "open the recipe in $VISUAL/$EDITOR as a recipe card / apply a card kept from an edit"),
        .init(name: "ingredient",
              usage: "ingredient add <id> <text> | ingredient rm <id> <n> | ingredient set <id> <n> <text> "
                + "| ingredient insert <id> <n> <text> | ingredient move <id> <n> <to>",
              summary: "append / remove / replace / insert as the n-th / move an ingredient (from 1)", oneShot: true),
        .init(name: "step",
              usage: "step add <id> <text> | step rm <id> <n> | step set <id> <n> <text> | step insert <id> <n> <text> "
                + "| step move <id> <n> <to> | step section <id> <n>[-<m>] <name>",
              summary: "append / remove / replace / insert as the n-th / move a step (from 1) / put steps in a section",
              oneShot: true),
        .init(name: "image", usage: "image set <id> <path> | image clear <id>",
              summary: "attach a copy of a JPEG, PNG, GIF or WebP file / detach it", oneShot: true),
        .init(name: "delete", usage: "delete <id> [--verbose]",
              summary: "delete (`undo <id>` brings it back); the server's copy goes on the next sync", oneShot: true),
        .init(name: "history", usage: "history [<id>] [--json] | history --deleted [--json]",
              summary: "a recipe's revisions here, with what changed / the newest changes of all / the deleted recipes",
              oneShot: true),
        .init(name: "undo", usage: "undo [<id>] [--to <revision>] [--verbose]",
              summary: "back one revision (again: one more), or to a revision history lists; no id: the last change here",
              oneShot: true),
        .init(name: "search", usage: "search <words>",
              summary: "find recipes by words (title:, ingredients:, … limit a word to a field)"),
        .init(name: "cook", usage: "cook <id> [--servings N | --scale F]",
              summary: "one step at a time with the ingredients it uses and a timer (on a pipe: all steps)"),
        .init(name: "import", usage: "import [--dry-run] [--as-new] <file|url>...",
              summary: "import JSON-LD, microdata or RDFa pages and files, web addresses, Paprika exports (again: updates)"),
        .init(name: "export", usage: "export [<id>...] [--out <dir>] [--format jsonld|markdown]",
              summary: "recipes as schema.org JSON-LD (an array here, or one file each in <dir>) or Markdown pages"),
        .init(name: "status", usage: "status [<id>...]", summary: "where each recipe stands with the server"),
        .init(name: "sync", usage: "sync [<id>...] | sync [<id>...] & | sync --background [<id>...]",
              summary: "upload with progress (Ctrl-C cancels) / the same in the background: the prompt returns"),
        .init(name: "jobs", usage: "jobs", summary: "the background sync of this session and how far it got"),
        .init(name: "wait", usage: "wait", summary: "wait for the background sync to end (Ctrl-C stops waiting)"),
        .init(name: "cancel", usage: "cancel <id> | cancel %<job>",
              summary: "cancel a recipe's upload, wherever it runs / stop a background sync"),
        .init(name: "conflicts", usage: "conflicts", summary: "the recipes in conflict with the server, both values of each field"),
        .init(name: "resolve", usage: "resolve <id> mine|theirs [<field>...]",
              summary: "settle a conflict: yours or the server's, in every field or those named"),
        .init(name: "help", usage: "help [<command>]", summary: "this list, or one command's usage"),
        .init(name: "quit", usage: "quit", summary: "leave (also `exit` or Ctrl-D)"),
        .init(name: "exit", usage: "exit", summary: "leave (also `quit` or Ctrl-D)"),
    ]

    /// Whether the command changes a recipe (one change, one revision); `history` only reads.
    public var changes: Bool { name != "history" }

    /// The spec named `name`, if any.
    public static func named(_ name: String) -> ReplCommandSpec? { all.first { $0.name == name } }

    func usageError(_ problem: String? = nil) -> CommandLineError {
        CommandLineError((problem.map { $0 + "; " } ?? "") + "usage: \(usage)")
    }

    /// Parses the words after the name; those from `optionsEnd` on came after a `--` and are never options.
    func parse(_ arguments: [String], optionsEnd: Int) throws(CommandLineError) -> ReplCommand {
        /// Whether the word at `index` is the option `option` (not a word after `--`).
        func isOption(_ index: Int, _ option: String) -> Bool {
            index < optionsEnd && index < arguments.count && arguments[index] == option
        }
        switch name {
        case "new":
            let title = arguments.joined(separator: " ")
            guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw usageError("a title is needed") }
            return .new(title: title)
        case "list":
            guard arguments.isEmpty else { throw usageError("list takes no arguments") }
            return .list
        case "show":
            let details = arguments.indices.contains { isOption($0, "--details") }
            let kept = arguments.indices.filter { !isOption($0, "--details") }
            let (id, scale) = try recipeAndScale(kept.map { arguments[$0] }, mayBeOption: { kept[$0] < optionsEnd })
            return .show(id: id, scale: scale, details: details)
        case "title", "description", "yield", "keywords":
            guard arguments.count >= 2 else { throw usageError() }
            let id = try Self.recipeID(arguments[0])
            let text = arguments.dropFirst().joined(separator: " ")
            switch name {
            case "title":
                guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw usageError("a title cannot be empty") }
                return .edit(id: id, .title(text))
            case "description": return .edit(id: id, .description(text))
            case "yield": return .edit(id: id, .yield(text))
            default: return .edit(id: id, .keywords(text))
            }
        case "ingredient", "step":
            return try parsePart(arguments)
        case "preptime", "cooktime", "totaltime", "category", "cuisine", "author", "url", "tools", "diets", "nutrition":
            return try parseDetail(arguments)
        case "edit":
            if arguments.count == 3, isOption(1, "--from") {
                guard !arguments[2].isEmpty else { throw usageError("--from needs a file") }
                return .applyCard(id: try Self.recipeID(arguments[0]), path: arguments[2])
            }
            guard arguments.count == 1 else { throw usageError() }
            return .editInEditor(id: try Self.recipeID(arguments[0]))
        case "cook":
            return try parseCook(arguments, optionsEnd: optionsEnd)
        case "search":
            guard !arguments.isEmpty else { throw usageError("give the words to search for") }
            return .search(words: arguments)
        case "import":
            let flags = arguments.indices.filter { isOption($0, "--dry-run") || isOption($0, "--as-new") }
            let dryRun = flags.contains { arguments[$0] == "--dry-run" }
            let asNew = flags.contains { arguments[$0] == "--as-new" }
            let paths = arguments.indices.filter { !flags.contains($0) }.map { arguments[$0] }
            guard !paths.isEmpty, !paths.contains(where: \.isEmpty) else { throw usageError("give the files to import") }
            if paths.contains("-") {
                throw usageError("the REPL reads its commands from standard input; give file paths (or run `recipes import -`)")
            }
            return .importFiles(paths: paths, dryRun: dryRun, asNew: asNew)
        case "export":
            var ids: [RecipeReference] = []
            var folder: String?
            var format = ExportFormat.jsonld
            var rest = Array(arguments.enumerated())[...]
            while let (index, argument) = rest.popFirst() {
                if isOption(index, "--out") {
                    guard folder == nil, let value = rest.popFirst()?.element, !value.isEmpty else {
                        throw usageError("--out needs one folder")
                    }
                    folder = value
                } else if isOption(index, "--format") {
                    guard let value = rest.popFirst()?.element, let chosen = ExportFormat(rawValue: value) else {
                        throw usageError("--format is jsonld or markdown")
                    }
                    format = chosen
                } else {
                    ids.append(try Self.recipeID(argument))
                }
            }
            return .export(ids: ids, folder: folder, format: format)
        case "jobs", "wait", "conflicts":
            guard arguments.isEmpty else { throw usageError("\(name) takes no arguments") }
            return name == "jobs" ? .jobs : name == "wait" ? .wait : .conflicts
        case "resolve":
            guard arguments.count >= 2 else { throw usageError("give the recipe's id, then mine or theirs") }
            let id = try Self.recipeID(arguments[0])
            guard let side = ConflictSide(rawValue: arguments[1]) else {
                throw usageError("choose mine or theirs, not \"\(arguments[1])\"")
            }
            return .resolve(id: id, side: side, fields: Self.fieldNames(Array(arguments.dropFirst(2))))
        case "image":
            guard arguments.count >= 2 else { throw usageError() }
            let id = try Self.recipeID(arguments[1])
            switch arguments[0] {
            case "set":
                guard arguments.count == 3, !arguments[2].isEmpty else {
                    throw usageError("give one file path (quote it if it has spaces)")
                }
                return .setImage(id: id, path: arguments[2])
            case "clear":
                guard arguments.count == 2 else { throw usageError() }
                return .edit(id: id, .clearImage)
            default:
                throw usageError("unknown image action \"\(arguments[0])\"")
            }
        case "delete", "history", "undo":
            return try parseHistory(arguments, optionsEnd: optionsEnd)
        case "status":
            var ids: [RecipeReference] = []
            for argument in arguments { ids.append(try Self.recipeID(argument)) }
            return .status(ids: ids)
        case "sync":
            var arguments = arguments
            var background = false
            if let last = arguments.last, last.hasSuffix("&") {
                background = true
                arguments[arguments.count - 1].removeLast()
                if arguments[arguments.count - 1].isEmpty { arguments.removeLast() }
            }
            if let flag = arguments.indices.first(where: { isOption($0, "--background") }) {
                background = true
                arguments.remove(at: flag)
            }
            var ids: [RecipeReference] = []
            for argument in arguments { ids.append(try Self.recipeID(argument)) }
            return background ? .backgroundSync(ids: ids) : .sync(ids: ids)
        case "cancel":
            guard arguments.count == 1 else { throw usageError() }
            if arguments[0].hasPrefix("%") {
                guard let job = Int(arguments[0].dropFirst()), job >= 1 else {
                    throw usageError("\"\(arguments[0])\" is not a job; `jobs` shows them as %1, %2, …")
                }
                return .cancelJob(job)
            }
            return .cancel(id: try Self.recipeID(arguments[0]))
        case "help":
            guard arguments.count <= 1 else { throw usageError() }
            if let topic = arguments.first, Self.named(topic) == nil {
                throw CommandLineError("no command \"\(topic)\"; type `help` for the list of commands")
            }
            return .help(topic: arguments.first)
        default:  // quit, exit
            guard arguments.isEmpty else { throw usageError("\(name) takes no arguments") }
            return .quit
        }
    }

    /// `ingredient …` and `step …`: add, rm, set, insert, move.
    private func parsePart(_ arguments: [String]) throws(CommandLineError) -> ReplCommand {
        guard arguments.count >= 2 else { throw usageError() }
        let id = try Self.recipeID(arguments[1])
        let step = name == "step"
        func text(after count: Int) throws(CommandLineError) -> String {
            guard arguments.count > count else { throw usageError("the \(name) text is missing") }
            return arguments.dropFirst(count).joined(separator: " ")
        }
        switch arguments[0] {
        case "add":
            let text = try text(after: 2)
            return .edit(id: id, step ? .addStep(text) : .addIngredient(text))
        case "rm":
            guard arguments.count == 3 else { throw usageError() }
            let n = try Self.position(arguments[2], what: name)
            return .edit(id: id, step ? .removeStep(n) : .removeIngredient(n))
        case "set", "insert":
            guard arguments.count >= 3 else { throw usageError("give the \(name) number, then its text") }
            let n = try Self.position(arguments[2], what: name)
            let text = try text(after: 3)
            if arguments[0] == "set" { return .edit(id: id, step ? .setStep(n, text) : .setIngredient(n, text)) }
            return .edit(id: id, step ? .insertStep(n, text) : .insertIngredient(n, text))
        case "section" where step:
            guard arguments.count >= 3 else { throw usageError("give the step number (or n-m), then the section's name") }
            let bounds = arguments[2].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let from = try Self.position(bounds[0], what: name)
            let to = bounds.count == 2 ? try Self.position(bounds[1], what: name) : from
            guard from <= to else { throw usageError("\"\(arguments[2])\" runs backwards; write the lower step first") }
            return .edit(id: id, .stepSection(from: from, to: to, name: arguments.dropFirst(3).joined(separator: " ")))
        case "move":
            guard arguments.count == 4 else { throw usageError("give the \(name) number, then where it goes") }
            let from = try Self.position(arguments[2], what: name)
            let to = try Self.position(arguments[3], what: name)
            return .edit(id: id, step ? .moveStep(from: from, to: to) : .moveIngredient(from: from, to: to))
        default:
            throw usageError("unknown \(name) action \"\(arguments[0])\"")
        }
    }

    /// Parses how a recipe is named: its id (a whole number from 1), its title or the start of it, or its uuid or the
    /// start of it (`RecipeReference`).
    static func recipeID(_ text: String) throws(CommandLineError) -> RecipeReference {
        guard let reference = RecipeReference(text) else {
            throw CommandLineError(RecipeReference.refusal(text))
        }
        return reference
    }

    static func position(_ text: String, what: String) throws(CommandLineError) -> Int {
        guard let n = Int(text), n >= 1 else {
            throw CommandLineError("\"\(text)\" is not a \(what) number; count from 1 as `show` lists them")
        }
        return n
    }
}
