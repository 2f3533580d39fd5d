import Foundation
import RecipesTestSupport
import Testing
@testable import RecipesCommandLine

/// What a person sees on a terminal: the built binary run on a pseudo-terminal, its bytes compared as they came.
@Suite("Output on a terminal, as a person sees it")
struct TerminalOutputTests {
    /// A home holding "Egg curry" and "Tomato soup".
    func kitchen() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let made = try runRecipes(["edit", "--home", dir.homePath], input: "new Egg curry\nnew Tomato soup\n")
        #expect(made.status == 0, "\(made.stderr)")
        return dir
    }

    @Test("search on a terminal marks the matched word in bold: the escape sequences reach the terminal whole")
    func searchBoldOnTerminal() throws {
        let dir = try kitchen()
        let run = try runOnTerminal(["search", "egg", "--home", dir.homePath])
        #expect(run.status == 0)
        #expect(run.screen.contains("\u{1B}[1mEgg\u{1B}[0m curry"), "\(run.screen.debugDescription)")
        #expect(!run.screen.contains(" [1m") && !run.screen.contains(" [0m"), "no escape turned into a space")
        // The columns line up as if the styling were not there: CONTEXT starts where its header does.
        let lines = run.screen.components(separatedBy: "\r\n")
        let header = try #require(lines.first { $0.hasPrefix("ID") })
        let row = try #require(lines.first { $0.hasPrefix("1 ") })
        let column = try #require(header.range(of: "CONTEXT")).lowerBound.utf16Offset(in: header)
        #expect(row.dropFirst(column).hasPrefix("\u{1B}[1mEgg"), "\(row.debugDescription)")
    }

    @Test("search with NO_COLOR, on a dumb terminal or on a pipe marks the word with brackets and no escape at all")
    func searchWithoutStyling() throws {
        let dir = try kitchen()
        let noColour = try runOnTerminal(["search", "egg", "--home", dir.homePath], environment: ["NO_COLOR": "1"])
        #expect(noColour.screen.contains("[Egg] curry") && !noColour.screen.contains("\u{1B}"))
        let dumb = try runOnTerminal(["search", "egg", "--home", dir.homePath], environment: ["TERM": "dumb"])
        #expect(dumb.screen.contains("[Egg] curry") && !dumb.screen.contains("\u{1B}"))
        let piped = try runRecipes(["search", "egg", "--home", dir.homePath])
        #expect(piped.stdout == "ID  TITLE      FOUND IN  CONTEXT\n1   Egg curry  title     [Egg] curry\n")
    }
}
