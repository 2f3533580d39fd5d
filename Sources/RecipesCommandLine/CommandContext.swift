import ArgumentParser
import Foundation
import RecipeStore

/// What every subcommand starts from: the home, the environment, the configuration and the store.
struct CommandContext {
    let home: RecipesHome
    let environment: [String: String]
    let console: any Console

    init(homeOption: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
         console: any Console = StandardConsole()) {
        self.environment = environment
        self.home = RecipesHome.resolve(option: homeOption, environment: environment)
        self.console = console
    }

    /// A context for an already resolved home (the REPL's commands).
    init(home: RecipesHome, environment: [String: String], console: any Console) {
        self.home = home
        self.environment = environment
        self.console = console
    }

    func configuration() throws -> ClientConfiguration {
        try ClientConfiguration.load(home: home, environment: environment)
    }

    /// Opens the home's store: `.readWrite` for commands that change something, `.readOnly` for those that only read
    /// (which then create and write nothing, and work in a read-only home).
    func openStore(_ access: RecipeStore.Access = .readWrite) throws -> RecipeStore {
        try RecipeStore(home: home, access: access)
    }

    /// Runs `body`, turning a failure into one `recipes: …` line on stderr and exit status 1.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            throw report(error)
        }
    }

    /// `reportingFailures` for asynchronous commands.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            throw report(error)
        }
    }

    /// An exit status passes through; anything else is printed as one `recipes: …` line and becomes exit status 1.
    private func report(_ error: any Error) -> any Error {
        if let exit = error as? ExitCode { return exit }
        let message = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
        console.err("recipes: \(message)\n")
        return ExitCode.failure
    }
}

extension ParsableCommand {
    /// The `--home` given before or after the subcommand name (after wins).
    static func homeOption(_ global: GlobalOptions, _ root: RecipesCommand) -> String? {
        global.home ?? root.home
    }
}
