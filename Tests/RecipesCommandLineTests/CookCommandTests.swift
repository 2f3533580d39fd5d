import Foundation
import RecipeModels
import RecipesTestSupport
import Testing
@testable import RecipesCommandLine

@Suite("recipes cook: a recipe as a cook follows it, on a pipe and one step at a time on a terminal")
struct CookCommandTests {
    /// A home with recipe 1, "Lasagne" for 4: an ingredient section, three steps (the third in a section), times.
    static func lasagne() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let made = try runRecipes(["edit", "--home", dir.homePath], input: """
            new Lasagne
            yield 1 4 servings
            cooktime 1 45m
            ingredient add 1 2 tbsp olive oil
            ingredient add 1 1 onion, finely chopped
            ingredient add 1 2 cloves garlic, minced
            ingredient add 1 500 g minced beef
            ingredient add 1 For the topping:
            ingredient add 1 250 ml crème fraîche
            ingredient add 1 100 g Parmesan, grated
            step add 1 "Heat the oil and fry the onion and garlic for 5 minutes."
            step add 1 "Add the beef and brown it, 10-12 minutes."
            step add 1 "Spread the crème fraîche over it, scatter the parmesan and bake at 180 °C for 25 minutes."
            step section 1 3 Topping

            """)
        #expect(made.status == 0, "\(made)")
        return dir
    }

    @Test("on a pipe: the title, the scaled yield, the ingredients by section, each step numbered with the ingredients it uses")
    func pipe() throws {
        let dir = try Self.lasagne()
        let cooked = try runRecipes(["cook", "lasagne", "--servings", "8", "--home", dir.homePath])
        #expect(cooked.status == 0, "\(cooked)")
        #expect(cooked.stderr == "")
        #expect(cooked.stdout == """
            Lasagne
            yield: 8 servings (scaled × 2)
            times: cook 45m

            Ingredients:
              4 tbsp olive oil
              2 onions, finely chopped
              4 cloves garlic, minced
              1000 g minced beef
              == For the topping ==
              500 ml crème fraîche
              200 g Parmesan, grated

            Steps:
              1. Heat the oil and fry the onion and garlic for 5 minutes.
                 - 4 tbsp olive oil
                 - 2 onions, finely chopped
                 - 4 cloves garlic, minced
              2. Add the beef and brown it, 10-12 minutes.
                 - 1000 g minced beef
              == Topping ==
              3. Spread the crème fraîche over it, scatter the parmesan and bake at 180 °C for 25 minutes.
                 - 500 ml crème fraîche
                 - 200 g Parmesan, grated

            """)
    }

    @Test("the printed form shows a control character of a title, an ingredient or a step as a space; a step's lines stay under its number")
    func cleaned() {
        let text = CookText(RecipeContent(
            title: "Tea\u{1B}]0;owned\u{07}", ingredients: ["1 tea\u{1B}[2Jbag"],
            steps: [Step(text: "Brew the tea bag.\nWait 3 minutes.")]), scale: nil, units: nil)
        #expect(text.plain() == """
            Tea ]0;owned

            Ingredients:
              1 tea [2Jbag

            Steps:
              1. Brew the tea bag.
                 Wait 3 minutes.

            """)
        #expect(!text.plain().contains("\u{1B}"))
    }

    @Test("--units us: the measures and the oven temperature converted, a line that says so; the stored recipe unchanged")
    func units() throws {
        let dir = try Self.lasagne()
        let cooked = try runRecipes(["cook", "1", "--units", "us", "--home", dir.homePath])
        #expect(cooked.status == 0, "\(cooked)")
        for line in ["measures: US (cups, spoons, ounces, pounds, °F)", "  1⅛ lb minced beef\n", "  3½ oz Parmesan, grated\n", "  1 cup crème fraîche\n",
                     "bake at 350 °F for 25 minutes.\n", "     - 1 cup crème fraîche\n"] {
            #expect(cooked.stdout.contains(line), "\(line): \(cooked.stdout)")
        }
        let shown = try runRecipes(["show", "1", "--json", "--home", dir.homePath])
        #expect(shown.stdout.contains("\"500 g minced beef\""), "\(shown.stdout)")
    }

    @Test("bad input gets show's one line and a non-zero exit", arguments: [
        (["--servings", "0"], 64, "--servings must be a number above 0, e.g. 8"),
        (["--scale", "2", "--servings", "4"], 64, "give --servings or --scale, not both"),
        (["--scale", "5000"], 64, "--scale: a scale of 5000 is too large"),
        (["--units", "imperial"], 64, "'metric' and 'us'"),
    ] as [([String], Int32, String)])
    func refusals(_ options: [String], _ status: Int32, _ message: String) throws {
        let dir = try Self.lasagne()
        let refused = try runRecipes(["cook", "1", "--home", dir.homePath] + options)
        #expect(refused.status == status, "\(refused)")
        #expect(refused.stderr.contains(message), "\(refused.stderr)")
        #expect(refused.stdout == "")
    }

    @Test("a recipe that is not there, or whose yield has no number for --servings: one line, exit 1")
    func missingAndNoYield() throws {
        let dir = try Self.lasagne()
        let missing = try runRecipes(["cook", "pizza", "--home", dir.homePath])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("recipes: ") && missing.stdout == "", "\(missing)")
        _ = try runRecipes(["yield", "1", "a big dish", "--home", dir.homePath])
        let noNumber = try runRecipes(["cook", "1", "--servings", "8", "--home", dir.homePath])
        #expect(noNumber.status == 1, "\(noNumber)")
        #expect(noNumber.stderr == "recipes: recipe 1: the recipe has the yield \"a big dish\", with no number to scale "
            + "from; use --scale (e.g. --scale 2), or set its yield\n")
    }

    @Test("the bytes of a raw terminal as keys: arrows, letters, space and Return, Ctrl-C apart; other sequences skipped", arguments: [
        ([0x1B, 0x5B, 0x43], [CookInput.key(.next)]),
        ([0x1B, 0x4F, 0x44], [.key(.back)]),
        (Array("n p i t q".utf8), [.key(.next), .key(.next), .key(.back), .key(.next), .key(.ingredients), .key(.next),
                                   .key(.timer), .key(.next), .key(.quit)]),
        ([0x0D, 0x7F, 0x04, 0x03], [.key(.next), .key(.back), .key(.quit), .interrupt]),
        ([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43, 0x1B, 0x5B, 0x44], [.key(.back)]),
        ([0x1B], []),
        (Array("x".utf8), []),
    ] as [([UInt8], [CookInput])])
    func keys(_ bytes: [UInt8], _ inputs: [CookInput]) {
        #expect(CookInput.decode(bytes) == inputs)
    }

    /// The cook text of a recipe with a long step of accented and wide words.
    static func wideText() -> CookText {
        CookText(RecipeContent(
            title: "Crème brûlée", recipeYield: "4 ramekins",
            ingredients: ["500 ml crème fraîche", "6 œufs (jaunes)", "100 g sucre"],
            steps: [Step(text: "Fouettez les jaunes et le sucre, versez la crème fraîche chaude, puis enfournez à 150 °C "
                + "pendant 40 minutes 抹茶抹茶抹茶抹茶抹茶抹茶抹茶抹茶抹茶抹茶抹茶抹茶", section: "Crème")]),
            scale: nil, units: nil)
    }

    @Test("a step screen: its heading, the step wrapped within the width as the terminal counts it, the ingredients it uses, the keys last")
    func stepScreen() {
        var session = CookSession(times: Self.wideText().times)
        _ = session.handle(.key(.next), at: .zero)
        let rows = CookScreen.rows(Self.wideText(), session, size: TerminalSize(columns: 30, rows: 16), now: .zero)
        #expect(rows.count == 16)
        #expect(rows[0] == CookScreen.bold + "Step 1 of 1 · Crème" + CookScreen.plain)
        for row in rows.dropFirst() { #expect(TerminalText.width(row) <= 30, "\(row)") }
        let text = rows.joined(separator: "\n")
        #expect(Array(rows[3...8]) == [
            "Fouettez les jaunes et le", "sucre, versez la crème fraîche", "chaude, puis enfournez à 150",
            "°C pendant 40 minutes", "抹茶抹茶抹茶抹茶抹茶抹茶抹茶抹", "茶抹茶抹茶抹茶抹茶",
        ], "accents take one column, 抹 and 茶 two: 30 columns are 30 letters or 15 of those: \(rows)")
        #expect(text.contains("You need:\n  500 ml crème fraîche\n  100 g sucre"), "\(rows)")
        #expect(rows.last == "keys: ← i t q", "the keys shortened to what fits 30 columns: \(rows)")
        let wider = CookScreen.rows(Self.wideText(), session, size: TerminalSize(columns: 40, rows: 16), now: .zero)
        #expect(wider.last == "← back  i ingredients  t timer  q quit", "\(wider)")
        let widest = CookScreen.rows(Self.wideText(), session, size: TerminalSize(columns: 100, rows: 16), now: .zero)
        #expect(widest.last == "←/p back · i all ingredients · t start the timer (40 minutes) · q quit", "\(widest)")
    }

    @Test("a running timer shows on every screen as mm:ss left; its end says which step's time is up")
    func timerRows() {
        let text = Self.wideText()
        var session = CookSession(times: text.times)
        _ = session.handle(.key(.next), at: .zero)
        _ = session.handle(.key(.timer), at: .zero)
        _ = session.handle(.key(.ingredients), at: .seconds(61))
        let rows = CookScreen.rows(text, session, size: TerminalSize(columns: 80, rows: 20), now: .seconds(61))
        #expect(rows[0].contains("All ingredients · over step 1 of 1"), "\(rows)")
        #expect(rows.contains("timer · step 1 · 38:59 left · 40 minutes"), "\(rows)")
        _ = session.handle(.tick, at: .seconds(2400))
        let done = CookScreen.rows(text, session, size: TerminalSize(columns: 80, rows: 20), now: .seconds(2400))
        #expect(done.contains("time's up: step 1's timer is done (40 minutes)"), "\(done)")
        #expect(!done.contains { $0.hasPrefix("timer ·") })
    }

    @Test("a screen shorter than its rows is cut, saying how many more; the keys stay on the last row")
    func shortScreen() {
        let text = CookText(RecipeContent(title: "Soup", ingredients: (1...30).map { "\($0) carrots" }, steps: ["Boil."]),
                            scale: nil, units: nil)
        let rows = CookScreen.rows(text, CookSession(times: text.times), size: TerminalSize(columns: 40, rows: 10), now: .zero)
        #expect(rows.count == 10)
        #expect(rows[8].hasPrefix("… ") && rows[8].contains("more rows"), "\(rows)")
        #expect(rows[9] == "→/n/space step 1 · q quit")
    }

    @Test("ingredients that need more rows than the screen has go in two columns on a wide screen, the left filled first")
    func twoColumns() {
        let text = CookText(RecipeContent(title: "Soup", ingredients: (1...30).map { "\($0) carrots" }, steps: ["Boil."]),
                            scale: nil, units: nil)
        let rows = CookScreen.rows(text, CookSession(times: text.times), size: TerminalSize(columns: 80, rows: 24), now: .zero)
        #expect(rows.count == 24)
        #expect(rows[3] == "  1 carrots" + String(repeating: " ", count: 28) + "    16 carrots", "\(rows)")
        #expect(rows[17] == "  15 carrots" + String(repeating: " ", count: 27) + "    30 carrots", "\(rows)")
        #expect(!rows.contains { $0.contains("more rows") }, "\(rows)")
        #expect(rows[19] == "Get them ready, then → for step 1.")
    }

    @Test("on a terminal: the ingredients, → n ← space move between steps, t starts a countdown, i shows all ingredients, q asks then quits; the terminal is as it was after")
    func terminal() throws {
        let dir = try Self.lasagne()
        let output = try Self.drive("keys", dir)
        #expect(output.hasSuffix("EXIT 0\n"), "\(output)")
        #expect(!output.contains("MISSING"), "\(output)")
        #expect(output.contains("COOK EXIT 0"), "\(output)")
        #expect(output.contains("You need:"), "\(output)")
        #expect(output.contains("timer · step 2 · 11:59 left · 10-12 minutes"), "\(output)")
        #expect(output.contains("\u{1B}[?1049h") && output.contains("\u{1B}[?25h\u{1B}[?1049l"),
                "the alternate screen entered, then left with the cursor shown: \(output)")
        let stty = output.components(separatedBy: "COOK EXIT 0").last ?? ""
        let flags = Set(stty.split(whereSeparator: { $0 == " " || $0 == ";" || $0.isNewline }).map(String.init))
        #expect(flags.contains("echo") && flags.contains("icanon") && !flags.contains("-echo"), "stty -a after: \(stty)")
        #expect(output.contains("ECHO on\nICANON on\n"), "\(output)")
    }

    @Test("SIGTERM on a step screen, or Ctrl-C while a timer runs: the screen and the terminal's settings put back, exit 143 or 130",
          arguments: [("sigterm", 143), ("ctrl-c", 130)] as [(String, Int)])
    func terminated(_ mode: String, _ status: Int) throws {
        let dir = try Self.lasagne()
        let output = try Self.drive(mode, dir)
        #expect(!output.contains("MISSING"), "\(output)")
        #expect(output.contains("\u{1B}[?25h\u{1B}[?1049l"), "\(output)")
        #expect(output.hasSuffix("ECHO on\nICANON on\nEXIT \(status)\n"), "\(output)")
    }

    @Test("the REPL's cook: parsed as show is, listed by help, completed by title; on a pipe it prints the steps")
    func repl() throws {
        #expect(try ReplCommand.parse(["cook", "3"]) == .cook(id: 3))
        #expect(try ReplCommand.parse(["cook", "3", "--servings", "8"]) == .cook(id: 3, scale: .servings(8)))
        #expect(throws: CommandLineError.self) { try ReplCommand.parse(["cook", "3", "--units", "us"]) }
        #expect(throws: CommandLineError.self) { try ReplCommand.parse(["cook", "3", "--", "--servings", "8"]) }
        #expect(ReplSession.help(topic: "cook") == "usage: cook <id> [--servings N | --scale F]\n  one step at a time with "
            + "the ingredients it uses and a timer (on a pipe: all steps)\n")
        #expect(ReplSession.help(topic: nil).contains("  cook <id> "))
        #expect(ReplCompletion.candidates(before: ["cook"], prefix: "las", recipes: { [(1, "Lasagne")] })
            == .words([.init(insert: "Lasagne", display: "1  Lasagne")], appendSpace: true))
        let dir = try Self.lasagne()
        let piped = try runRecipes(["edit", "--home", dir.homePath], input: "cook 1 --scale 2\n")
        #expect(piped.status == 0, "\(piped)")
        #expect(piped.stdout.contains("yield: 8 servings (scaled × 2)\n") && piped.stdout.contains("     - 1000 g minced beef\n"),
                "\(piped.stdout)")
    }

    @Test("the REPL's cook on a terminal takes the screen, gives it back on q, and the prompt reads lines again")
    func replTerminal() throws {
        let dir = try Self.lasagne()
        let output = try Self.drive("repl", dir)
        #expect(!output.contains("MISSING"), "\(output)")
        #expect(output.contains("\u{1B}[?25h\u{1B}[?1049l"), "\(output)")
        #expect(output.hasSuffix("ECHO on\nICANON on\nEXIT 0\n"), "\(output)")
    }

    /// Runs `Tests/Fixtures/pty_cook.py` in `mode` on the home of `dir`; what it printed.
    static func drive(_ mode: String, _ dir: TemporaryDirectory) throws -> String {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pty_cook.py").path
        let result = try runRecipes([script, mode, builtProduct("recipes").path, dir.homePath],
                                    environment: ["TERM": "xterm"], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        return result.stdout
    }
}
