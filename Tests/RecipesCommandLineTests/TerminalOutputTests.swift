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

    /// The lines of `screen` that end early: the next line continues the same paragraph (same indentation, text,
    /// not a new row of a table) and its first word would have fit at the end of this one, as greedy wrapping within
    /// the `columns - 1` columns ArgumentParser fills would have put it.
    static func raggedBreaks(_ screen: String, columns: Int) -> [String] {
        let lines = screen.components(separatedBy: "\r\n")
        var ragged: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) {
            let indent = line.prefix { $0 == " " }.count
            let text = next.drop { $0 == " " }
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix("USAGE:"), !line.hasSuffix(":"),
                next.count - text.count == indent, !text.contains("  "), let word = text.split(separator: " ").first
            else { continue }
            if line.count + 1 + word.count <= columns - 1 { ragged.append(line + "⏎" + next) }
        }
        return ragged
    }

    @Test("--help of every command wraps its paragraphs evenly on an 80-column terminal: no line ends early",
          arguments: [
            [], ["edit"], ["list"], ["show"], ["search"], ["status"], ["sync"], ["cancel"], ["conflicts"], ["resolve"],
            ["import"], ["export"], ["cron"], ["cron", "install"], ["config"], ["doctor"],
          ])
    func helpWrapsEvenly(command: [String]) throws {
        let run = try runOnTerminal(command + ["--help"], columns: 80)
        #expect(run.status == 0)
        #expect(run.screen.contains("OVERVIEW:"), "\(run.screen)")
        #expect(Self.raggedBreaks(run.screen, columns: 80) == [], "recipes \(command.joined(separator: " ")) --help")
    }
}
