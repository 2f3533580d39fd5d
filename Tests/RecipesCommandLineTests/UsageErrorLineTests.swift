import Foundation
@testable import RecipesCommandLine
import RecipesTestSupport
import Testing

@Suite("ArgumentParser's refusals in the one error style: `recipes: ` what is wrong; the usage or the help to read")
struct UsageErrorLineTests {
    @Test("a missing argument, an unknown option and a bad value are each one line on stderr with exit 64, nothing on stdout")
    func oneLine() throws {
        let dir = TemporaryDirectory()
        let cases: [([String], String)] = [
            (["show"], "recipes: missing expected argument '<id>'; `recipes show --help` shows the usage\n"),
            (["list", "--colour"], "recipes: unknown option '--colour'; usage: recipes list "),
            (["sync", "--jobs", "many"], "recipes: the value 'many' is invalid for '--jobs <N>'; "),
        ]
        for (arguments, start) in cases {
            let result = try runRecipes(arguments + ["--home", dir.homePath])
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix(start), "\(arguments): \(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1 && result.stderr.hasSuffix("\n"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Error:") && !result.stderr.contains("Usage:"), "\(arguments): \(result.stderr)")
        }
        let help = try runRecipes(["show", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: recipes show") && help.stderr.isEmpty, "\(help)")
    }

    @Test("the line: a sentence's middle, the usage unwrapped when it fits, else the command's --help")
    func pure() {
        let full = "Error: Missing expected argument '<id>'\nHelp:  <id>  A recipe.\nUsage: recipes show [--json]\n"
            + "         <id>\n  See 'recipes show --help' for more information."
        #expect(UsageErrorLine.line(message: "Missing expected argument '<id>'", fullMessage: full)
            == "recipes: missing expected argument '<id>'; usage: recipes show [--json] <id>\n")
        let long = "Error: x\nUsage: recipes sync " + String(repeating: "[--option <VALUE>] ", count: 8)
            + "\n  See 'recipes sync --help' for more information."
        #expect(UsageErrorLine.line(message: "Bad.", fullMessage: long) == "recipes: bad; `recipes sync --help` shows the usage\n")
        #expect(UsageErrorLine.sentence("JSON is wrong.") == "JSON is wrong")
        #expect(UsageErrorLine.sentence("--home needs a folder") == "--home needs a folder")
    }
}
