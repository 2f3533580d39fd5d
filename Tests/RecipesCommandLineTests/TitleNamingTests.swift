import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeStore
@testable import RecipesCommandLine

@Suite("recipes named by title, through the built binary and on a terminal")
struct TitleNamingTests {
    /// A home with 1 "Crème brûlée", 2 "Lasagne al forno", 3 "Lasagne verde", and with `more` 4 "Crêpes", 5 "Cake",
    /// 6 "Ćevapi", 7 "Croûtons à l'ail", 8 "Crumble".
    static func home(more: Bool = false) throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let others = more ? ["Crêpes", "Cake", "Ćevapi", "Croûtons à l'ail", "Crumble"] : []
        for title in ["Crème brûlée", "Lasagne al forno", "Lasagne verde"] + others { _ = try store.create(title: title) }
        return dir
    }

    /// The columns (characters from the start of the row, escape sequences left out) where each title starts in the
    /// rows of a completion list, `  1  Crème brûlée      5  Cake`.
    static func titleColumns(_ row: String) -> [Int] {
        let plain = row.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
        let characters = Array(plain)
        var columns: [Int] = []
        for index in characters.indices.dropFirst(3)
        where characters[index - 3].isNumber && characters[index - 2] == " " && characters[index - 1] == " "
            && characters[index].isLetter {
            columns.append(index)
        }
        return columns
    }

    @Test("show, title and delete take a title or its start; an ambiguous name is refused listing both, changing nothing")
    func oneShot() throws {
        let dir = try Self.home()
        let home = ["--home", dir.homePath]
        let show = try runRecipes(["show", "creme brulee"] + home)
        #expect(show.status == 0 && show.stdout.hasPrefix("Crème brûlée\n"), "\(show)")
        let verde = try runRecipes(["show", "LASAGNE V"] + home)
        #expect(verde.status == 0 && verde.stdout.hasPrefix("Lasagne verde\n"), "\(verde)")
        let ambiguous = try runRecipes(["title", "lasagne", "Lasagne bianca"] + home)
        #expect(ambiguous.status == 1, "\(ambiguous)")
        #expect(ambiguous.stderr == "recipes: \"lasagne\" names several recipes: 2 \"Lasagne al forno\", 3 \"Lasagne verde\"; "
            + "name the one you mean by its id (the number before its title), or give more of its title\n", "\(ambiguous.stderr)")
        let deleteAmbiguous = try runRecipes(["delete", "Lasagne"] + home)
        #expect(deleteAmbiguous.status == 1 && deleteAmbiguous.stderr.contains("names several recipes"), "\(deleteAmbiguous)")
        var store = try RecipeStore(home: dir.home, access: .readOnly)
        #expect(try store.recipes().map(\.title) == ["Crème brûlée", "Lasagne al forno", "Lasagne verde"], "nothing changed")
        #expect(try store.recipe(id: 2).sync.revision == 1 && store.recipe(id: 3).sync.revision == 1)
        let renamed = try runRecipes(["title", "lasagne al", "Lasagne al forno classica"] + home)
        #expect(renamed.status == 0, "\(renamed)")
        let added = try runRecipes(["ingredient", "add", "Crème", "2 eggs"] + home)
        #expect(added.status == 0, "\(added)")
        let none = try runRecipes(["show", "pizza"] + home)
        #expect(none.status == 1 && none.stderr.hasPrefix("recipes: no recipe here is titled \"pizza\""), "\(none)")
        store = try RecipeStore(home: dir.home, access: .readOnly)
        #expect(try store.recipe(id: 2).title == "Lasagne al forno classica")
        #expect(try store.recipe(id: 1).ingredients.map(\.text) == ["2 eggs"])
    }

    @Test("on a terminal, Tab completes a title (quoted, accents kept), a common start of two, and a quote left open")
    func completion() throws {
        let dir = try Self.home(more: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pty_repl_titles.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, builtProduct("recipes").path, dir.homePath]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": dir.homePath, "LANG": "C.UTF-8", "TERM": "xterm"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.hasSuffix("EXIT 0\n"), "\(output)")
        #expect(output.contains("2  Lasagne al forno") && output.contains("3  Lasagne verde"),
                "the second Tab lists both lasagnes with their ids: \(output)")
        #expect(output.contains("\r\nLasagne al forno\r\n"), "the open quote was completed and closed, the recipe shown: \(output)")
        let rows = output.components(separatedBy: "\r\n").filter { $0.contains("Crumble") || $0.contains("Cake") }
        #expect(rows.count == 2, "the six recipes starting with c in two rows: \(rows)")
        let columns = rows.map(Self.titleColumns)
        #expect(columns.count == 2 && columns[0].count >= 2 && columns[1].count >= 2
            && columns[1] == Array(columns[0].prefix(columns[1].count)),
            "each column starts where the one above it does, accents or not: \(rows) \(columns)")
        let store = try RecipeStore(home: dir.home, access: .readOnly)
        #expect(try store.recipe(id: 1).description == "silky", "description \"Crème brûlée\" silky ran")
        #expect(try store.recipe(id: 3).recipeYield == "4 portions", "yield \"Lasagne verde\" 4 portions ran")
        #expect(try store.recipe(id: 2).recipeYield == "", "the other lasagne kept its yield")
    }

    @Test("completion offers titles for a word not of digits, quoted as a REPL word; ids for digits, as before")
    func titleCandidates() {
        let recipes: [(id: Int64, title: String)] = [(1, "Crème brûlée"), (2, "Lasagne"), (12, "Lasagne verde"), (3, "Tea")]
        #expect(ReplCompletion.recipeNames("crè", recipes) == .words([.init(insert: "\"Crème brûlée\"", display: " 1  Crème brûlée")], appendSpace: true))
        #expect(ReplCompletion.recipeNames("CREME", recipes) == .words([.init(insert: "\"Crème brûlée\"", display: " 1  Crème brûlée")], appendSpace: true))
        #expect(ReplCompletion.recipeNames("las", recipes) == .words([
            .init(insert: "Lasagne", display: " 2  Lasagne"), .init(insert: "\"Lasagne verde\"", display: "12  Lasagne verde"),
        ], appendSpace: true))
        #expect(ReplCompletion.recipeNames("1", recipes) == .words([
            .init(insert: "1", display: " 1  Crème brûlée"), .init(insert: "12", display: "12  Lasagne verde"),
        ], appendSpace: true))
        #expect(ReplCompletion.recipeNames("pizza", recipes) == .nothing)
        #expect(ReplCompletion.candidates(before: ["ingredient", "add"], prefix: "te", recipes: { recipes })
            == .words([.init(insert: "Tea", display: " 3  Tea")], appendSpace: true))
        #expect(ReplCompletion.quoted("Say \"cheese\"") == "\"Say \\\"cheese\\\"\"")
    }

    @Test("with a quote left open, the word is from the quote on, and what is inserted is the rest of it, closed")
    func openQuote() {
        let typed = "show \"Lasagne "
        let quote = CompletionWord.openQuote(in: typed)
        #expect(quote.map { typed.distance(from: typed.startIndex, to: $0) } == 5)
        #expect(CompletionWord.openQuote(in: "show \"a b\" ") == nil)
        #expect(CompletionWord.openQuote(in: "show \\\"a") == nil, "an escaped quote opens nothing")
        #expect(CompletionWord.openQuote(in: "show 'it\\'s") == nil, "a backslash is literal between single quotes")
        #expect(CompletionWord.openQuote(in: "show 'Crème b").map { "show 'Crème b".distance(from: "show 'Crème b".startIndex, to: $0) } == 5)
        let within = CompletionWord.within([.init(insert: "\"Lasagne verde\"", display: "12  Lasagne verde"),
                                            .init(insert: "\"Lasagne vecchia\"", display: " 2  Lasagne vecchia")],
                                           quote: "\"", kept: "\"lasagne ", typed: "lasagne v")
        #expect(within.map(\.insert) == ["verde\"", "vecchia\""])
        #expect(CompletionWord.common([.init(insert: "Lasagne", display: ""), .init(insert: "lasagna", display: "")],
                                      kept: "", typed: "las") == "las", "a common start shorter than what is typed keeps it")
        #expect(CompletionWord.common([.init(insert: "\"Lasagne a\"", display: ""), .init(insert: "\"Lasagne b\"", display: "")],
                                      kept: "", typed: "las") == "\"Lasagne ")
    }

    @Test("listed entries carry as many bytes beyond their columns each, so libedit's byte-wide columns line up")
    func alignedDisplays() {
        let displays = [" 1  Crème brûlée", " 2  Cake", "12  東京ラーメン", " 3  Ćevapi"]
        let aligned = CompletionWord.aligned(displays)
        let extra = aligned.map { // bytes less the columns a terminal shows (the reset shows none)
            $0.utf8.count - TerminalText.width($0.replacingOccurrences(of: "\u{1B}\\[0*m", with: "", options: .regularExpression))
        }
        #expect(Set(extra).count == 1, "\(aligned) \(extra)")
        #expect(zip(aligned, displays).allSatisfy { $0.hasPrefix($1) && $0.hasSuffix("m") })
    }
}
