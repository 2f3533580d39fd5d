import ArgumentParser
import Foundation
import RecipeStore

/// `recipes new Pizza`, `recipes ingredient add 3 2 eggs`, … : a REPL editing command run once from a shell, with the
/// REPL's own words, checks and output (one change, one revision), read from the REPL's command table
/// (`ReplCommandSpec`, the entries marked `oneShot`) rather than written a second time for ArgumentParser.
///
/// Its words are taken as the REPL takes a line's words, except `--home DIR` (or `--home=DIR`), `--help` and `-h`
/// before a `--`, which mean what they mean for every command, and `--verbose` (`-v`), which prints the line an edit
/// says on a terminal (`added ingredient 3 to Lasagne`) on a pipe too; `--` passes the words after it as they are
/// (`recipes ingredient add 3 -- --half a lemon`).
enum OneShotCommand {
    /// What a command line (without the program's name) is, before ArgumentParser sees it.
    enum Route: Equatable {
        /// A REPL editing command, run by `OneShotCommand`.
        case oneShot(name: String, words: [String], home: String?, help: Bool, verbose: Bool = false)
        /// A word that is no command: refused with a suggestion when one is close.
        case unknown(String)
        /// A command of ArgumentParser's tree (or its options): left to it.
        case parser
    }

    /// Sorts `arguments`: the first word that is not an option (or `--home`'s value) names the command.
    static func route(_ arguments: [String], parserCommands: [String]) -> Route {
        var home: String?
        var help = false
        var verbose = false
        var words: [String] = []
        var name: String?
        var index = arguments.startIndex
        var optionsEnded = false
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if !optionsEnded {
                if argument == "--" && name != nil {
                    optionsEnded = true
                    words.append(argument)  // the REPL's parser ends the command's own options there too
                    continue
                }
                if argument == "--home" {
                    guard index < arguments.endIndex else { return .parser }  // ArgumentParser says what is missing
                    home = arguments[index]
                    index += 1
                    continue
                }
                if argument.hasPrefix("--home=") {
                    home = String(argument.dropFirst("--home=".count))
                    continue
                }
                if argument == "--help" || argument == "-h" {
                    if name == nil { return .parser }
                    help = true
                    continue
                }
                if (argument == "--verbose" || argument == "-v") && name != nil {
                    verbose = true
                    continue
                }
            }
            if name == nil {
                if argument.hasPrefix("-") { return .parser }  // --version, an unknown option: ArgumentParser's
                name = argument
            } else {
                words.append(argument)
            }
        }
        guard let name else { return .parser }
        if parserCommands.contains(name) || name == "help" { return .parser }
        if let spec = ReplCommandSpec.named(name), spec.oneShot {
            return .oneShot(name: name, words: words, home: home, help: help, verbose: verbose)
        }
        return .unknown(name)
    }

    /// The names every `recipes <command>` has: ArgumentParser's subcommands and the one-shot editing commands.
    static func allNames(parserCommands: [String]) -> [String] {
        parserCommands + ReplCommandSpec.all.filter(\.oneShot).map(\.name)
    }

    /// The one-line refusal of a word that names no command, with the closest command when one is close.
    static func unknownCommand(_ word: String, parserCommands: [String]) -> String {
        "recipes: " + CommandSuggestion.unknownCommand(word, among: allNames(parserCommands: parserCommands), dialect: .shell) + "\n"
    }

    /// `recipes <name> --help`: the usage from the REPL's table.
    static func help(_ spec: ReplCommandSpec) -> String {
        let usages = spec.usages.map { "recipes " + $0 + " [--verbose] [--home DIR]" }
        return "usage: " + usages.joined(separator: "\n       ") + "\n  \(spec.summary)\n"
            + (spec.changes ? "  The same command as in `recipes edit`: one change, one revision." : "  The same command as in `recipes edit`; it only reads.")
            + " Ids are those `recipes list` shows,\n"
            + "  or a recipe's uuid (or its first characters, as `recipes status` shows them). On a terminal it says\n"
            + "  in one line what it changed; --verbose (-v) says it on a pipe too.\n"
    }

    /// Runs the command and answers its exit status: 0 done, 1 it failed (nothing changed), 64 a usage error.
    static func run(
        name: String, words: [String], homeOption: String?, help: Bool, verbose: Bool = false,
        console: any Console = StandardConsole(), stdoutIsTerminal: Bool = isatty(STDOUT_FILENO) == 1,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> Int32 {
        guard let spec = ReplCommandSpec.named(name) else { return ExitCode.validationFailure.rawValue }
        if help {
            console.out(Self.help(spec))
            return 0
        }
        if homeOption == "" {
            console.err("recipes: --home needs a folder, not an empty string; give a path, or leave --home out to use the default home\n")
            return ExitCode.validationFailure.rawValue
        }
        let command: ReplCommand
        do {
            command = try ReplCommand.parse([name] + words, dialect: .shell)
        } catch {
            console.err("recipes: \(TerminalText.clean(error.message))\n")
            return ExitCode.validationFailure.rawValue
        }
        let context = CommandContext(homeOption: homeOption, environment: environment, console: console)
        do {
            var status: Int32 = 0
            try await context.reportingFailures {
                let session = ReplSession(
                    store: try context.openStore(.readOnly), configuration: try context.configuration(),
                    console: console, environment: environment)
                session.dialect = .shell
                session.receipts = verbose || stdoutIsTerminal
                if try await session.execute(command) == .failed { status = ExitCode.failure.rawValue }
            }
            return status
        } catch {
            return (error as? ExitCode)?.rawValue ?? ExitCode.failure.rawValue
        }
    }
}
