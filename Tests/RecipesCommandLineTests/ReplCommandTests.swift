import Testing
import RecipeModels
import RecipeStore
@testable import RecipesCommandLine

@Suite("REPL commands parse to what they mean, and bad input says what is wrong")
struct ReplCommandTests {
    func parse(_ words: String...) throws -> ReplCommand { try ReplCommand.parse(words) }

    @Test("every command of the contract parses")
    func everyCommand() throws {
        #expect(try parse("new", "Tomato", "soup") == .new(title: "Tomato soup"))
        #expect(try parse("list") == .list)
        #expect(try parse("show", "3") == .show(id: 3))
        #expect(try parse("title", "3", "Red", "soup") == .edit(id: 3, .title("Red soup")))
        #expect(try parse("description", "3", "") == .edit(id: 3, .description("")))
        #expect(try parse("yield", "3", "4 servings") == .edit(id: 3, .yield("4 servings")))
        #expect(try parse("keywords", "3", "soup,vegan") == .edit(id: 3, .keywords("soup,vegan")))
        #expect(try parse("ingredient", "add", "3", "2", "tomatoes") == .edit(id: 3, .addIngredient("2 tomatoes")))
        #expect(try parse("ingredient", "rm", "3", "2") == .edit(id: 3, .removeIngredient(2)))
        #expect(try parse("step", "add", "3", "Chop.") == .edit(id: 3, .addStep("Chop.")))
        #expect(try parse("step", "rm", "3", "1") == .edit(id: 3, .removeStep(1)))
        #expect(try parse("image", "set", "3", "/tmp/a b.png") == .setImage(id: 3, path: "/tmp/a b.png"))
        #expect(try parse("image", "clear", "3") == .edit(id: 3, .clearImage))
        #expect(try parse("delete", "3") == .delete(id: 3))
        #expect(try parse("status") == .status(ids: []))
        #expect(try parse("status", "1", "2") == .status(ids: [1, 2]))
        #expect(try parse("sync") == .sync(ids: []))
        #expect(try parse("sync", "3", "1") == .sync(ids: [3, 1]))
        #expect(try parse("cancel", "2") == .cancel(id: 2))
        #expect(try parse("help") == .help(topic: nil))
        #expect(try parse("help", "step") == .help(topic: "step"))
        #expect(try parse("quit") == .quit)
        #expect(try parse("exit") == .quit)
    }

    @Test("bad input is refused with a message naming the problem", arguments: [
        (["frobnicate"], "unknown command \"frobnicate\""),
        (["sync", "012"], "\"012\" names no recipe"),
        (["cancel"], "usage: cancel <id>"),
        (["cancel", "1", "2"], "usage: cancel <id>"),
        (["new"], "usage: new <title>"),
        (["show"], "usage: show <id>"),
        (["show", "1", "2"], "usage: show <id>"),
        (["show", "012"], "\"012\" names no recipe"),
        (["show", "0"], "\"0\" names no recipe"),
        (["show", "-4"], "\"-4\" names no recipe"),
        (["show", "99999999999999999999"], "names no recipe"),
        (["title", "1"], "usage: title <id> <text>"),
        (["title", "1", " "], "a title cannot be empty"),
        (["ingredient", "add", "1"], "the ingredient text is missing"),
        (["ingredient", "rm", "1", "x"], "\"x\" is not a ingredient number"),
        (["ingredient", "rm", "1", "0"], "\"0\" is not a ingredient number"),
        (["ingredient", "swap", "1", "2"], "unknown ingredient action \"swap\""),
        (["step"], "usage: step add"),
        (["image", "set", "1"], "give one file path"),
        (["image", "set", "1", "a", "b"], "give one file path"),
        (["image", "paint", "1"], "unknown image action"),
        (["list", "all"], "list takes no arguments"),
        (["help", "nope"], "no command \"nope\""),
        (["quit", "now"], "quit takes no arguments"),
        (["status", "02"], "\"02\" names no recipe"),
    ])
    func refusals(words: [String], expected: String) {
        #expect {
            try ReplCommand.parse(words)
        } throws: { error in
            (error as? CommandLineError)?.message.contains(expected) == true
        }
    }

    /// The message parsing `words` (as `dialect` reads them) is refused with.
    func refusal(_ words: [String], _ dialect: CommandDialect = .repl) -> String {
        do {
            _ = try ReplCommand.parse(words, dialect: dialect)
            return "no refusal"
        } catch {
            return error.message
        }
    }

    @Test("a word written as an option the command does not take is refused, with the line that gives it as text")
    func optionWhereTextWasMeant() {
        #expect(refusal(["yield", "5", "--servings", "4"], .shell)
            == "\"--servings\" is not an option (yield takes no options); to write it as text, put it after --: "
                + "`recipes yield 5 -- --servings 4`")
        #expect(refusal(["yield", "5", "--servings", "4"]).hasSuffix("put it after --: `yield 5 -- --servings 4`"))
        #expect(refusal(["title", "2", "Soup", "-v"]).hasPrefix("\"-v\" is not an option (title takes no options)"))
        #expect(refusal(["ingredient", "add", "3", "--half", "a lemon"]).hasSuffix("`ingredient add 3 -- --half 'a lemon'`"))
        #expect(refusal(["export", "1", "--output", "x"]).hasPrefix("\"--output\" is not an option (export takes --out, --format)"))
        #expect(refusal(["sync", "--backgrond"]).contains("(sync takes --background)"))
        #expect(refusal(["import", "--dryrun", "a.json"]).hasPrefix("\"--dryrun\" is not an option (import takes --dry-run, --as-new)"))
    }

    @Test("`--` ends the options: the words after it are text, even ones written as options; numbers are text anyway")
    func optionsEnd() throws {
        #expect(try parse("yield", "5", "--", "--servings", "4") == .edit(id: 5, .yield("--servings 4")))
        #expect(try parse("ingredient", "add", "3", "--", "--half", "a lemon", "--") == .edit(id: 3, .addIngredient("--half a lemon --")))
        #expect(try parse("step", "add", "3", "Chill", "--", "-overnight") == .edit(id: 3, .addStep("Chill -overnight")))
        #expect(try parse("nutrition", "3", "fat", "-2", "g") == .edit(id: 3, .nutrition(key: "fatContent", value: "-2 g")))
        #expect(try parse("title", "3", "-", "Soup", "-") == .edit(id: 3, .title("- Soup -")))
        #expect(try parse("import", "--", "--dry-run") == .importFiles(paths: ["--dry-run"], dryRun: false))
        #expect(try parse("import", "--as-new", "--", "-x.json") == .importFiles(paths: ["-x.json"], dryRun: false, asNew: true))
        #expect(throws: CommandLineError.self) { try parse("sync", "--", "--background") }
        #expect(throws: CommandLineError.self) { try parse("show", "3", "--", "--scale", "2") }
        #expect(try parse("edit", "3", "--from", "--", "-card.txt") == .applyCard(id: 3, path: "-card.txt"))
        #expect(try parse("export", "--out", "--", "-dir") == .export(ids: [], folder: "-dir"))
    }
}

@Suite("The REPL's editing, interchange and job commands parse; tab completion offers what fits the position")
struct ReplEditingCommandTests {
    func parse(_ words: String...) throws -> ReplCommand { try ReplCommand.parse(words) }

    @Test("in-place edits, edit, search, import, export and the job commands parse")
    func newCommands() throws {
        #expect(try parse("ingredient", "set", "3", "2", "3", "tomatoes") == .edit(id: 3, .setIngredient(2, "3 tomatoes")))
        #expect(try parse("ingredient", "insert", "3", "1", "salt") == .edit(id: 3, .insertIngredient(1, "salt")))
        #expect(try parse("ingredient", "move", "3", "4", "1") == .edit(id: 3, .moveIngredient(from: 4, to: 1)))
        #expect(try parse("step", "set", "3", "2", "Stir.") == .edit(id: 3, .setStep(2, "Stir.")))
        #expect(try parse("step", "insert", "3", "2", "Rest.") == .edit(id: 3, .insertStep(2, "Rest.")))
        #expect(try parse("step", "move", "3", "1", "2") == .edit(id: 3, .moveStep(from: 1, to: 2)))
        #expect(try parse("edit", "4") == .editInEditor(id: 4))
        #expect(try parse("search", "tom", "title:soup") == .search(words: ["tom", "title:soup"]))
        #expect(try parse("import", "a.json", "--dry-run", "b.html") == .importFiles(paths: ["a.json", "b.html"], dryRun: true))
        #expect(try parse("export") == .export(ids: [], folder: nil))
        #expect(try parse("export", "2", "--out", "dir", "1") == .export(ids: [2, 1], folder: "dir"))
        #expect(try parse("sync", "&") == .backgroundSync(ids: []))
        #expect(try parse("sync", "3&") == .backgroundSync(ids: [3]))
        #expect(try parse("sync", "--background", "2") == .backgroundSync(ids: [2]))
        #expect(try parse("jobs") == .jobs)
        #expect(try parse("wait") == .wait)
        #expect(try parse("cancel", "%1") == .cancelJob(1))
    }

    @Test("the whole recipe's commands parse: times as people write them, lists, diets by name, nutrition, sections, scaling, export formats")
    func wholeRecipeCommands() throws {
        #expect(try parse("preptime", "3", "1h", "30m") == .edit(id: 3, .detail(.prepTime, "PT1H30M")))
        #expect(try parse("cooktime", "3", "90 min") == .edit(id: 3, .detail(.cookTime, "PT1H30M")))
        #expect(try parse("totaltime", "3", "P0DT2H") == .edit(id: 3, .detail(.totalTime, "P0DT2H")))
        #expect(try parse("totaltime", "3", "") == .edit(id: 3, .detail(.totalTime, "")))
        #expect(try parse("category", "3", "Soup,", "Starter") == .edit(id: 3, .detailList(.recipeCategory, ["Soup", "Starter"])))
        #expect(try parse("cuisine", "3", "") == .edit(id: 3, .detailList(.recipeCuisine, [])))
        #expect(try parse("tools", "3", "Blender") == .edit(id: 3, .detailList(.tool, ["Blender"])))
        #expect(try parse("diets", "3", "vegan, paleo") == .edit(id: 3, .detailList(.suitableForDiet, ["https://schema.org/VeganDiet", "paleo"])))
        #expect(try parse("author", "3", "Jane", "Doe") == .edit(id: 3, .detail(.author, "Jane Doe")))
        #expect(try parse("url", "3", "https://x.example/a") == .edit(id: 3, .detail(.url, "https://x.example/a")))
        #expect(try parse("nutrition", "3", "fat", "9 g") == .edit(id: 3, .nutrition(key: "fatContent", value: "9 g")))
        #expect(try parse("nutrition", "3", "calories", "") == .edit(id: 3, .nutrition(key: "calories", value: "")))
        #expect(try parse("step", "section", "3", "2-4", "For", "the", "sauce") == .edit(id: 3, .stepSection(from: 2, to: 4, name: "For the sauce")))
        #expect(try parse("step", "section", "3", "2", "") == .edit(id: 3, .stepSection(from: 2, to: 2, name: "")))
        #expect(try parse("show", "3", "--servings", "8") == .show(id: 3, scale: .servings(8)))
        #expect(try parse("show", "3", "--scale", "1.5") == .show(id: 3, scale: .factor(1.5)))
        #expect(try parse("export", "--format", "markdown", "1") == .export(ids: [1], folder: nil, format: .markdown))
        #expect(try parse("import", "--as-new", "https://x.example/r") == .importFiles(paths: ["https://x.example/r"], dryRun: false, asNew: true))
        #expect(ReplCommandSpec.fieldNames(["nutrition", "calories", "property", "video", "nutrition", "title"])
            == ["nutrition calories", "property video", "nutrition", "title"])
    }

    @Test("bad input names the problem", arguments: [
        (["preptime", "1", "soon"], "\"soon\" is not a time; write it like 1h 30m, 90 min or PT1H30M"),
        (["preptime", "1"], "usage: preptime <id> <time>"),
        (["url", "1", "ftp://x"], "\"ftp://x\" is not a web address"),
        (["nutrition", "1", "vitamins", "a lot"], "\"vitamins\" is not a nutrition property"),
        (["nutrition", "1", "fat"], "give the nutrition property, then its text"),
        (["step", "section", "1", "3-2", "x"], "runs backwards"),
        (["step", "section", "1"], "give the step number (or n-m), then the section's name"),
        (["show", "1", "--servings", "0"], "--servings takes a number above 0"),
        (["show", "1", "--portions", "2"], "\"--portions\" is not an option (show takes --servings, --scale, --details)"),
        (["export", "--format", "pdf"], "--format is jsonld or markdown"),
        (["ingredient", "set", "1", "2"], "the ingredient text is missing"),
        (["step", "move", "1", "2"], "give the step number, then where it goes"),
        (["step", "move", "1", "x", "2"], "\"x\" is not a step number"),
        (["edit"], "usage: edit <id>"),
        (["search"], "give the words to search for"),
        (["import"], "give the files to import"),
        (["import", "-"], "give file paths"),
        (["export", "--out"], "--out needs one folder"),
        (["export", "012"], "\"012\" names no recipe"),
        (["cancel", "%x"], "is not a job"),
        (["jobs", "1"], "jobs takes no arguments"),
    ])
    func refusals(words: [String], expected: String) {
        #expect {
            try ReplCommand.parse(words)
        } throws: { error in
            (error as? CommandLineError)?.message.contains(expected) == true
        }
    }

    @Test("completion: commands first, then actions, ids with titles, fields and files by position")
    func completion() {
        let recipes: () -> [(id: Int64, title: String)] = { [(1, "Soup"), (2, "Bread"), (12, "Stew")] }
        func complete(_ before: [String], _ prefix: String) -> ReplCompletion {
            ReplCompletion.candidates(before: before, prefix: prefix, recipes: recipes)
        }
        func inserts(_ completion: ReplCompletion) -> [String] {
            if case .words(let candidates, _) = completion { return candidates.map(\.insert) }
            return []
        }
        #expect(inserts(complete([], "se")) == ["search"])
        #expect(inserts(complete([], "s")) == ["show", "step", "search", "status", "sync"])
        #expect(inserts(complete(["ingredient"], "")) == ["add", "rm", "set", "insert", "move"])
        #expect(complete(["show"], "1") == .words([
            .init(insert: "1", display: " 1  Soup"), .init(insert: "12", display: "12  Stew"),
        ], appendSpace: true))
        #expect(inserts(complete(["step", "set"], "")) == ["1", "2", "12"])
        #expect(complete(["step", "set", "1"], "") == .nothing)
        #expect(complete(["image", "set", "1"], "") == .files)
        #expect(complete(["import"], "") == .files)
        #expect(complete(["export", "--out"], "") == .files)
        #expect(complete(["search"], "ing") == .words([.init(insert: "ingredients:", display: "ingredients:")], appendSpace: false))
        #expect(inserts(complete(["help"], "ex")) == ["export", "exit"])
        #expect(ReplCompletion.commonPrefix([.init(insert: "12", display: ""), .init(insert: "1", display: "")]) == "1")
    }
}

@Suite("history and undo parse, and their bad input says what is wrong")
struct HistoryCommandTests {
    func parse(_ words: String...) throws -> ReplCommand { try ReplCommand.parse(words) }

    @Test("history, undo and delete's --verbose parse to what they mean")
    func historyCommands() throws {
        #expect(try parse("history") == .history(id: nil, deleted: false, json: false))
        #expect(try parse("history", "3", "--json") == .history(id: 3, deleted: false, json: true))
        #expect(try parse("history", "--deleted") == .history(id: nil, deleted: true, json: false))
        #expect(try parse("history", "lasagne") == .history(id: .title("lasagne"), deleted: false, json: false))
        #expect(try parse("undo") == .undo(id: nil, revision: nil))
        #expect(try parse("undo", "8", "--to", "5") == .undo(id: 8, revision: 5))
        #expect(try parse("undo", "8", "--verbose") == .undo(id: 8, revision: nil, verbose: true))
        #expect(try parse("delete", "8", "--verbose") == .delete(id: 8, verbose: true))
    }

    @Test("Tab completes the recipe of history and undo by id and by title, as for delete")
    func completion() {
        let recipes: () -> [(id: Int64, title: String)] = { [(1, "Soup"), (2, "Bread"), (8, "Lasagne al forno")] }
        func inserts(_ before: [String], _ prefix: String) -> [String] {
            if case .words(let candidates, _) = ReplCompletion.candidates(before: before, prefix: prefix, recipes: recipes) {
                return candidates.map(\.insert)
            }
            return []
        }
        #expect(inserts([], "und") == ["undo"] && inserts([], "hist") == ["history"])
        #expect(inserts(["undo"], "las") == ["\"Lasagne al forno\""])
        #expect(inserts(["history"], "") == ["1", "2", "8"])
        #expect(inserts(["undo", "8"], "").isEmpty)
    }

    @Test("bad words for history and undo are refused with the usage", arguments: [
        (["history", "3", "--deleted"], "--deleted lists every deleted recipe"),
        (["history", "3", "4"], "name one recipe"),
        (["undo", "8", "--to"], "--to takes a revision number"),
        (["undo", "8", "--to", "zero"], "--to takes a revision number"),
        (["undo", "--to", "3"], "--to needs the recipe"),
        (["delete"], "name the recipe to delete"),
        (["undo", "8", "--json"], "\"--json\" is not an option (undo takes --to, --verbose)"),
    ])
    func refused(words: [String], message: String) {
        #expect {
            try ReplCommand.parse(words)
        } throws: { error in
            ((error as? CommandLineError)?.message ?? "").contains(message)
        }
    }
}
