import Foundation
@testable import RecipesCommandLine
import RecipesTestSupport
import Testing

@Suite("output fitted to the terminal's width, counted in the columns a terminal shows")
struct TerminalWidthTests {
    @Test("TextWrap breaks at spaces within the width, counts a wide character as two, cuts a word longer than a line",
          arguments: [
            ("a bb ccc dddd", 6, ["a bb", "ccc", "dddd"]),
            ("Crème brûlée au four", 12, ["Crème brûlée", "au four"]),
            ("寿司 と 天ぷら", 6, ["寿司", "と", "天ぷら"]),
            ("abcdefghij", 4, ["abcd", "efgh", "ij"]),
            ("", 10, [""]),
          ])
    func wrap(text: String, width: Int, lines: [String]) {
        #expect(TextWrap.lines(text, width: width) == lines)
        #expect(TextWrap.lines(text, width: width).allSatisfy { TerminalText.width($0) <= width })
    }

    @Test("a table cell cut to a width ends in …, keeps its emphasis, and counts brackets")
    func truncatedCell() {
        let cell = TableCell(parts: [.init(text: "2 cloves ", emphasised: false), .init(text: "garlic", emphasised: true),
                                     .init(text: ", crushed and more", emphasised: false)])
        let cut = cell.truncated(toWidth: 14, .brackets)
        #expect(cut.rendered(.brackets).text == "2 cloves [ga]…" && cut.rendered(.brackets).width == 14)
        let wider = cell.truncated(toWidth: 20, .brackets)
        #expect(wider.rendered(.brackets).text == "2 cloves [garlic], …" && wider.rendered(.brackets).width == 20)
        #expect(cell.truncated(toWidth: 80, .brackets) == cell)
    }

    @Test("the REPL's help fits 80 and 120 columns, every command listed; wide enough, summaries beside their usages")
    func help() {
        for columns in [60, 80, 120] {
            let text = ReplSession.help(topic: nil, columns: columns)
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.allSatisfy { TerminalText.width($0) < columns }, "\(columns): \(lines.filter { $0.count >= columns })")
            for spec in ReplCommandSpec.all where spec.name != "exit" {
                #expect(text.contains("\n  \(spec.usages[0])"), "\(columns): \(spec.name)")
            }
        }
        let wide = ReplSession.help(topic: nil, columns: 160)
        #expect(wide.contains("\n  quit ") && wide.split(separator: "\n").contains { $0.hasPrefix("  quit") && $0.contains("leave") })
        let narrow = ReplSession.help(topic: nil, columns: 80)
        #expect(narrow.contains("\n  quit\n      leave"), "\(narrow)")
        #expect(ReplSession.help(topic: nil) == ReplSession.help(topic: nil, columns: nil), "a pipe: lines as long as they are")
        #expect(ReplCommandSpec.named("show")?.usages == ["show <id> [--servings N | --scale F] [--details]"], "a | in brackets is no alternative")
        #expect(ReplCommandSpec.named("sync")?.usages.count == 3)
        #expect(ReplSession.help(topic: nil).contains("\n  show <id> [--servings N | --scale F] [--details]  "))
    }

    @Test("search on a terminal 80 columns wide: no row wider than 79 columns, the context ending in …; on a pipe, whole")
    func searchFits() throws {
        let dir = TemporaryDirectory()
        let made = try runRecipes(["edit", "--home", dir.homePath], input: """
            new Tomato soup with a long name
            ingredient add 1 800 g canned tomatoes, the best you can find at the market on a Saturday morning
            ingredient add 1 2 cloves garlic

            """)
        #expect(made.status == 0, "\(made)")
        let screen = try runOnTerminal(["search", "tomatoes", "--home", dir.homePath], environment: ["NO_COLOR": "1"], columns: 80)
        #expect(screen.status == 0, "\(screen.screen)")
        let rows = screen.screen.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 2 && rows.allSatisfy { TerminalText.width($0) <= 79 }, "\(rows)")
        #expect(rows.last?.hasSuffix("…") == true, "\(rows)")
        let piped = try runRecipes(["search", "tomatoes", "--home", dir.homePath])
        #expect(piped.stdout.contains("the best you can find at the market"), "\(piped.stdout)")
    }
}
