import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore
@testable import RecipesCommandLine

@Suite("The REPL runs every command against the store; a failed one changes nothing")
struct ReplSessionTests {
    let dir = TemporaryDirectory()
    let console = CapturingConsole()
    let store: RecipeStore
    let session: ReplSession

    init() throws {
        store = try RecipeStore(home: dir.home)
        let configuration = try ClientConfiguration.load(home: dir.home, environment: [:])
        session = ReplSession(store: store, configuration: configuration, console: console,
                              environment: ["HOME": dir.url.path])
    }

    @Test("a session of edits builds the recipe and every successful change bumps the revision")
    func editsBuildRecipe() async throws {
        let image = dir.file("soup.png", pngBytes())
        let lines = [
            "new Tomato soup", "description 1 'A warm soup'", "yield 1 \"4 servings\"", "keywords 1 soup,vegan",
            "ingredient add 1 2 tomatoes", "ingredient add 1 1 onion", "step add 1 Chop.", "step add 1 Simmer.",
            "step rm 1 1", "image set 1 \(image)", "title 1 Red soup",
        ]
        for line in lines { #expect(await session.run(line: line) == .succeeded, "\(line): \(console.stderr)") }
        #expect(console.stdout == "created 1\n")
        let recipe = try store.recipe(id: 1)
        #expect(recipe.title == "Red soup")
        #expect(recipe.description == "A warm soup")
        #expect(recipe.recipeYield == "4 servings")
        #expect(recipe.ingredients.map(\.text) == ["2 tomatoes", "1 onion"])
        #expect(recipe.steps.map(\.text) == ["Simmer."])
        #expect(recipe.image?.format == .png)
        #expect(recipe.sync.revision == Int64(lines.count))
        #expect(recipe.sync.state == .pending)
    }

    @Test("cancel marks a queued recipe cancelled and says so; a second cancel has nothing to cancel")
    func cancelInTheRepl() async throws {
        #expect(await session.run(line: "new Bread") == .succeeded)
        console.reset()
        #expect(await session.run(line: "cancel 1") == .succeeded, "\(console.stderr)")
        #expect(console.stdout.hasPrefix("cancelled recipe 1: it was waiting to be uploaded"), "\(console.stdout)")
        #expect(try store.recipe(id: 1).sync.state == .cancelled)
        console.reset()
        #expect(await session.run(line: "cancel 1") == .succeeded)
        #expect(console.stdout == "nothing to cancel: recipe 1 is cancelled\n")
        #expect(await session.run(line: "cancel 7", location: "line 3") == .failed)
        #expect(console.stderr.contains("error: line 3: no recipe with id 7"), "\(console.stderr)")
    }

    @Test("sync with work due and no server configured fails in one line and changes nothing")
    func syncWithoutServer() async throws {
        #expect(await session.run(line: "new Bread") == .succeeded)
        console.reset()
        #expect(await session.run(line: "sync", location: "line 2") == .failed)
        #expect(console.stderr.hasPrefix("error: line 2: no server to upload to"), "\(console.stderr)")
        #expect(console.stderr.filter { $0 == "\n" }.count == 1, "\(console.stderr)")
        let recipe = try store.recipe(id: 1)
        #expect(recipe.sync.state == .pending && recipe.sync.revision == 1 && recipe.sync.leaseOwner == nil)
    }

    @Test("list, show, status and help print; delete removes; quit quits")
    func readingCommands() async throws {
        #expect(await session.run(line: "new Bread") == .succeeded)
        console.reset()
        #expect(await session.run(line: "list") == .succeeded)
        #expect(console.stdout == "ID  STATE    REV  TITLE\n1   pending  1    Bread\n")
        console.reset()
        #expect(await session.run(line: "show 1 --details") == .succeeded)
        #expect(console.stdout.contains("title:        Bread\n"))
        #expect(console.stdout.contains("revision:     1 (on this device)\nserver:       none yet\n"))
        let uuid = try store.recipe(id: 1).uuid.lowercasedString
        #expect(console.stdout.contains("uuid:         \(uuid)\n"))
        console.reset()
        #expect(await session.run(line: "status 1") == .succeeded)
        #expect(console.stdout == """
            ID  UUID      STATE    REV  SERVER  TITLE  WHY NOT SYNCED
            1   \(uuid.prefix(8))  pending  1    -       Bread  not on the server yet; no server is set: `recipes config set server.url URL` (and server.token), then sync
            destination: http server, no server.url set

            """, "with no server set, the advice is to set one, not to sync")
        console.reset()
        #expect(await session.run(line: "show \(uuid.prefix(6))") == .succeeded, "a recipe is named by the start of its uuid too")
        #expect(console.stdout.hasPrefix("Bread\n\ningredients:  none yet\n"), "the cook's view: \(console.stdout)")
        console.reset()
        #expect(await session.run(line: "help") == .succeeded)
        for spec in ReplCommandSpec.all where spec.name != "exit" {
            #expect(console.stdout.contains("  \(spec.name)"), "help lists \(spec.name)")
        }
        #expect(console.stdout.contains("\n  sync [<id>...]"), "help offers sync")
        console.reset()
        #expect(await session.run(line: "help image") == .succeeded)
        #expect(console.stdout.hasPrefix("usage: image set <id> <path> | image clear <id>\n"))
        #expect(await session.run(line: "delete 1") == .succeeded)
        #expect(try store.count() == 0)
        #expect(await session.run(line: "# just a comment") == .skipped)
        #expect(await session.run(line: "   ") == .skipped)
        #expect(await session.run(line: "quit") == .quit)
        #expect(console.stderr.isEmpty)
    }

    @Test("each bad line prints one error line on stderr and changes nothing", arguments: [
        "show 42", "title 42 x", "ingredient rm 1 3", "step rm 1 1", "image clear 1", "title 1 \"unclosed",
        "image set 1 /no/such/file.png", "image set 1 NOTIMAGE", "image set 1 DIR", "bogus", "delete 42",
        "status 1 42", "new", "ingredient rm 1 0",
    ])
    func badLinesChangeNothing(line: String) async throws {
        #expect(await session.run(line: "new Soup") == .succeeded)
        #expect(await session.run(line: "ingredient add 1 water") == .succeeded)
        let before = try store.recipe(id: 1)
        let mediaBefore = try FileManager.default.contentsOfDirectory(atPath: store.media.directory.path)
        console.reset()
        let notImage = dir.file("notes.txt", Array("hello".utf8))
        let resolved = line.replacingOccurrences(of: "NOTIMAGE", with: notImage)
            .replacingOccurrences(of: "DIR", with: dir.url.path)
        #expect(await session.run(line: resolved, location: "line 7") == .failed)
        #expect(console.stdout.isEmpty)
        let errorLines = console.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(errorLines.count == 2 && errorLines[1].isEmpty, "exactly one line: \(console.stderr)")
        #expect(console.stderr.hasPrefix("error: line 7: "))
        #expect(try store.recipe(id: 1) == before)
        #expect(try store.count() == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.media.directory.path) == mediaBefore)
    }

    @Test("an image over the configured limit is refused with the limit named")
    func imageLimitFromConfig() async throws {
        try ClientConfiguration.write(.imageMaxBytes, value: "100", home: dir.home, environment: [:])
        let limited = ReplSession(
            store: store, configuration: try ClientConfiguration.load(home: dir.home, environment: [:]),
            console: console)
        #expect(await limited.run(line: "new Soup") == .succeeded)
        let big = dir.file("big.png", pngBytes(size: 101))
        #expect(await limited.run(line: "image set 1 \(big)") == .failed)
        #expect(console.stderr.contains("over the 100-byte limit"))
        #expect(try store.recipe(id: 1).image == nil)
    }

    @Test("random garbage lines never crash the REPL and never change anything")
    func garbageNeverCrashes() async throws {
        #expect(await session.run(line: "new Soup") == .succeeded)
        let before = try store.recipe(id: 1)
        var generator = SeededGenerator(seed: 42)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789 \t'\"\\#-_.,;:!?/é漢\u{0}\u{7F}")
        for _ in 0..<2000 {
            let length = Int.random(in: 0..<40, using: &generator)
            var line = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            // Half of the lines start with a real command name so that argument parsing is exercised too.
            if Bool.random(using: &generator) {
                line = try #require(ReplCommandSpec.all.randomElement(using: &generator)).name + " " + line
            }
            if line.hasPrefix("quit") || line.hasPrefix("exit") || line.hasPrefix("new") || line.hasPrefix("help") {
                continue
            }
            let result = await session.run(line: line)
            #expect(result != .quit)
        }
        let after = try store.recipe(id: 1)
        // Garbage may legitimately form a valid edit ("title 1 x"); if the recipe changed, its revision must show it.
        if after != before { #expect(after.sync.revision > before.sync.revision) }
    }
}

/// A small deterministic random number generator (SplitMix64) for reproducible fuzzing.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
