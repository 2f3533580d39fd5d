import ArgumentParser
import Foundation

/// The `recipes` command: an offline-first recipe client.
public struct RecipesCommand: AsyncParsableCommand {
    /// The version `--version` prints and `User-Agent` carries.
    public static let version = "0.1.0"

    public static let configuration = CommandConfiguration(
        commandName: "recipes",
        abstract: "Edit recipe drafts offline and keep them safe in SQLite.",
        discussion: """
            State lives in $RECIPES_HOME, else ${XDG_DATA_HOME:-~/.local/share}/recipes; --home DIR overrides both.

            Editing commands, the same as in `recipes edit` (each is one change, one revision): \
            \(ReplCommandSpec.all.filter { $0.oneShot && $0.changes }.map(\.name).joined(separator: ", ")); and \
            \(ReplCommandSpec.all.filter { $0.oneShot && !$0.changes }.map(\.name).joined(separator: ", ")), which only \
            reads; `recipes <command> --help` \
            shows one's usage, e.g. `recipes new Pizza`, `recipes ingredient add 3 500 g flour`. Wherever a recipe's id \
            goes, its title or the start of it names it too, in any case and accent (one argument: quote a title of \
            several words), and so does its uuid or the start of it (as `recipes status` shows it).

            Exit status: 0 success, 1 failure, 64 usage error; `recipes sync` also 75 (work still waiting) and \
            77 (the server refused the credentials).
            """,
        version: version,
        subcommands: [
            EditCommand.self, ListCommand.self, ShowCommand.self, CookCommand.self, SearchCommand.self, StatusCommand.self,
            SyncCommand.self, CancelCommand.self, ConflictsCommand.self, ResolveCommand.self, ImportCommand.self, ExportCommand.self, CronCommand.self,
            ServiceCommand.self, ConfigCommand.self, DoctorCommand.self,
        ]
    )

    /// `--home DIR` given before the subcommand.
    @Option(name: .long, help: ArgumentHelp("Use DIR for all client state.", valueName: "DIR"))
    var home: String?

    /// Creates the command (used by argument parsing).
    public init() {}

    public func validate() throws { try GlobalOptions.check(home: home) }

    /// Runs the command line `arguments` (without the program name) through ArgumentParser, reading `--home=` as an
    /// empty `--home ""`, which `validate` refuses: ArgumentParser would take the next argument as the home instead
    /// (`recipes list --home= 3` would use a folder named `3`).
    ///
    /// The REPL's editing commands (`recipes new Pizza`) and words that name no command (`recipes sycn`, refused with
    /// the closest command) are sorted out first (`OneShotCommand.route`); everything else goes to ArgumentParser.
    public static func main(arguments: [String]) async {
        let parserCommands = configuration.subcommands.map { $0._commandName }
        switch OneShotCommand.route(arguments, parserCommands: parserCommands) {
        case .oneShot(let name, let words, let home, let help, let verbose):
            Foundation.exit(await OneShotCommand.run(name: name, words: words, homeOption: home, help: help, verbose: verbose))
        case .unknown(let word):
            StandardConsole().err(OneShotCommand.unknownCommand(word, parserCommands: parserCommands))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        case .parser:
            Foundation.exit(await parseAndRun(emptyHomeSpelledOut(arguments)))
        }
    }

    /// `arguments` with each `--home=` before a `--` replaced by `--home` and an empty value.
    static func emptyHomeSpelledOut(_ arguments: [String]) -> [String] {
        guard arguments.contains("--home=") else { return arguments }
        var result: [String] = []
        var optionsEnded = false
        for argument in arguments {
            if argument == "--" { optionsEnded = true }
            if !optionsEnded && argument == "--home=" { result += ["--home", ""] } else { result.append(argument) }
        }
        return result
    }
}

/// `--home DIR`, accepted after any subcommand too.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Use DIR for all client state.", valueName: "DIR"))
    var home: String?

    func validate() throws { try Self.check(home: home) }

    /// Refuses an empty `--home`, which would otherwise quietly mean the default home (a script's unset variable,
    /// `--home "$DIR"`, must not put its recipes somewhere else).
    static func check(home: String?) throws {
        if home == "" {
            throw ValidationError("--home needs a folder, not an empty string; give a path, or leave --home out to use the default home")
        }
    }
}
