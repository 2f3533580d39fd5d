import Testing
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
        (["sync", "x"], "\"x\" is not a recipe id"),
        (["cancel"], "usage: cancel <id>"),
        (["cancel", "1", "2"], "usage: cancel <id>"),
        (["new"], "usage: new <title>"),
        (["show"], "usage: show <id>"),
        (["show", "1", "2"], "usage: show <id>"),
        (["show", "abc"], "\"abc\" is not a recipe id"),
        (["show", "0"], "\"0\" is not a recipe id"),
        (["show", "-4"], "\"-4\" is not a recipe id"),
        (["show", "99999999999999999999"], "is not a recipe id"),
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
        (["status", "x"], "\"x\" is not a recipe id"),
    ])
    func refusals(words: [String], expected: String) {
        #expect {
            try ReplCommand.parse(words)
        } throws: { error in
            (error as? CommandLineError)?.message.contains(expected) == true
        }
    }
}
