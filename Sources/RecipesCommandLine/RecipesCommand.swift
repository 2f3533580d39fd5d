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
            Exit status: 0 success, 1 failure, 64 usage error; `recipes sync` also 75 (work still waiting) and
            77 (the server refused the credentials).
            """,
        version: version,
        subcommands: [
            EditCommand.self, ListCommand.self, ShowCommand.self, SearchCommand.self, StatusCommand.self,
            SyncCommand.self, CancelCommand.self, ImportCommand.self, ExportCommand.self, CronCommand.self,
            ConfigCommand.self,
        ]
    )

    /// `--home DIR` given before the subcommand.
    @Option(name: .long, help: ArgumentHelp("Use DIR for all client state.", valueName: "DIR"))
    var home: String?

    /// Creates the command (used by argument parsing).
    public init() {}
}

/// `--home DIR`, accepted after any subcommand too.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Use DIR for all client state.", valueName: "DIR"))
    var home: String?
}
