import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `recipes search <words>`: full-text search over titles, descriptions, keywords, ingredients and steps.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find recipes by words in their title, description, keywords, ingredients or steps.",
        discussion: """
            Every word must match, as the start of a word of the recipe ("tom" finds "tomatoes"; "creme" finds \
            "crème"; word forms are folded: "chopped" finds "chop"). field:word limits a word to one field: title, \
            description, keywords, ingredients, steps. Best matches first (a title match weighs most), each with the \
            fields it matched in and an excerpt with the matched words marked. Exit status 0, also when nothing \
            matches; 1 on a bad query.
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: ArgumentHelp("Show at most N recipes (default 20; 0: all).", valueName: "N")) var limit = 20
    @Flag(name: .long, help: "Print a JSON array of {id, title, fields, words, context}.") var json = false
    @Argument(help: "The words to look for.") var words: [String] = []

    func validate() throws {
        if words.isEmpty { throw ValidationError("give the words to search for, e.g. `recipes search tomato soup`") }
        if limit < 0 { throw ValidationError("--limit takes a number from 0 (all)") }
    }

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            let result = try store.search(words, limit: limit == 0 ? Int.max : limit)
            if json {
                context.console.out(SearchFormatter.json(result))
            } else {
                let terminal = isatty(STDOUT_FILENO) == 1
                let bold = SearchFormatter.wantsBold(stdoutIsTerminal: terminal, environment: context.environment)
                let formatter = SearchFormatter(bold: bold, columns: terminal ? TerminalSize.current().columns : nil)
                context.console.out(formatter.text(result, words: words, limit: limit))
            }
        }
    }
}
