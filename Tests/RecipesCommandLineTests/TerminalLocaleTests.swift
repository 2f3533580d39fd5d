import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeStore
@testable import RecipesCommandLine

@Suite("how the REPL reads characters on a terminal")
struct TerminalLocaleTests {
    /// A system that has exactly `installed`, with their codesets.
    static func system(_ installed: [String: String]) -> (String) -> String? { { installed[$0] } }

    /// A system with C, POSIX and C.UTF-8 only, as this machine.
    static func cUTF8Only(_ name: String) -> String? {
        ["C": "ANSI_X3.4-1968", "POSIX": "ANSI_X3.4-1968", "C.UTF-8": "UTF-8"][name]
    }

    @Test("the environment's locale is used when it is UTF-8; LC_ALL, then LC_CTYPE, then LANG name it")
    func environmentsUTF8Locale() {
        let installed = Self.system(["de_DE.UTF-8": "UTF-8", "fr_FR.utf8": "UTF-8", "C.UTF-8": "UTF-8", "C": "ANSI_X3.4-1968"])
        #expect(TerminalLocale.choose(environment: ["LANG": "de_DE.UTF-8"], apply: installed) == .utf8("de_DE.UTF-8"))
        #expect(TerminalLocale.choose(environment: ["LANG": "C", "LC_CTYPE": "fr_FR.utf8"], apply: installed)
            == .utf8("fr_FR.utf8"))
        #expect(TerminalLocale.choose(environment: ["LANG": "de_DE.UTF-8", "LC_ALL": "fr_FR.utf8"], apply: installed)
            == .utf8("fr_FR.utf8"))
        #expect(TerminalLocale.choose(environment: ["LC_ALL": "", "LANG": "de_DE.UTF-8"], apply: installed)
            == .utf8("de_DE.UTF-8"), "an empty variable is one that is not set")
    }

    @Test("no locale, C, POSIX or a UTF-8 locale this system lacks: C.UTF-8 stands in")
    func fallback() {
        for environment in [[:], ["LANG": "C"], ["LC_ALL": "POSIX"], ["LANG": ""], ["LANG": "en_US.UTF-8"]] {
            #expect(TerminalLocale.choose(environment: environment, apply: Self.cUTF8Only) == .utf8("C.UTF-8"),
                    "\(environment)")
        }
    }

    @Test("no UTF-8 locale at all, or one of another encoding: ASCII only, and the refusal says why and what to do")
    func asciiOnly() {
        let none = Self.system(["C": "ANSI_X3.4-1968", "POSIX": "ANSI_X3.4-1968"])
        let bare = TerminalLocale.choose(environment: ["LANG": "C"], apply: none)
        #expect(bare == .asciiOnly(named: "C"))
        #expect(bare.refusal.contains("the locale is C and this system has no UTF-8 locale"))
        #expect(bare.refusal.contains("the line was not run"))
        #expect(bare.refusal.contains("set LANG to a UTF-8 locale"))
        let latin = Self.system(["en_US.ISO-8859-1": "ISO-8859-1", "C.UTF-8": "UTF-8"])
        let other = TerminalLocale.choose(environment: ["LANG": "en_US.ISO-8859-1"], apply: latin)
        #expect(other == .asciiOnly(named: "en_US.ISO-8859-1"), "its terminal sends Latin-1, which is not read as UTF-8")
        #expect(other.refusal.contains("the locale en_US.ISO-8859-1 is not a UTF-8 one"))
        #expect(!other.readsUTF8 && TerminalLocale.utf8("C.UTF-8").readsUTF8)
    }

    @Test(
        "typed on a terminal, accents, ½, °, emoji and wide CJK text are stored as typed, through cursor movement, insertion and history; a byte that is not UTF-8 refuses its line",
        arguments: [["LANG": "C.UTF-8"], ["LANG": "C"], ["LANG": ""], ["LANG": "C", "LC_ALL": "C.UTF-8"],
                    ["LANG": "en_US.UTF-8"]])
    func typedText(environment: [String: String]) throws {
        let dir = TemporaryDirectory()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pty_repl_utf8.py").path
        let result = try runRecipes(
            [script, builtProduct("recipes").path, dir.homePath], environment: ["TERM": "xterm"].merging(environment) { $1 },
            executable: URL(fileURLWithPath: "/usr/bin/python3"))
        let screen = result.stdout
        #expect(screen.components(separatedBy: "\nEXIT 0\n").count == 3, "both sessions ended with 0: \(screen)")
        let store = try RecipeStore(home: dir.home)
        let recipes = try store.recipes()
        #expect(recipes.map(\.title) == [
            "Crème très brûlée", "東京のラーメン", "東京ラーメン 🍜", "東京ラーメン 🍣", "Gâteau ½ ° 🍰 北京", "Gâteau ½ ° 🍰 北京",
        ], "\(screen)")
        let first = try store.recipe(id: 1)
        #expect(first.ingredients.map(\.text) == ["½ tsp salt"])
        #expect(first.steps.map(\.text) == ["Bake at 180 °C for 45 minutes."])
        let refusals = screen.components(separatedBy: "error: the terminal sent bytes that are not UTF-8 text").count - 1
        #expect(refusals == 1, "the line with a Latin-1 byte is refused once, and recipe 4 keeps its title: \(screen)")
        #expect(screen.contains("東京ラーメン 🍜") && screen.contains("Crème"), "the terminal shows what was typed")
    }
}
