import ArgumentParser
import Foundation
import Locking
import RecipeStore

/// What every subcommand starts from: the home, the environment, the configuration and the store.
struct CommandContext {
    let home: RecipesHome
    let environment: [String: String]
    let console: any Console
    /// Whether this command has warned about a config file whose token others may read (once per command).
    private let warnedAboutConfigFile = Locked(false)

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

    /// The configuration of this home; the first load of the command warns on stderr when the file holds a token
    /// others may read, unless `warnAboutPermissions` is false (`config set` and `unset`, which rewrite it 0600).
    func configuration(warnAboutPermissions: Bool = true) throws -> ClientConfiguration {
        let configuration = try ClientConfiguration.load(home: home, environment: environment)
        if warnAboutPermissions, let warning = configuration.exposedTokenWarning,
            !warnedAboutConfigFile.withLock({ warned in defer { warned = true }; return warned })
        {
            console.err("recipes: \(warning)\n")
        }
        return configuration
    }

    /// What `status` and `show` say of the server, from the configuration read once: the kind whose versions they
    /// name (`server.kind`; `.http`, whose versions are plain numbers, when the configuration cannot be read or names
    /// no kind: `status`'s destination line says why), and whether a server is set (server.url; true when the
    /// configuration cannot be read, and the advice to sync then says what is wrong with it).
    func serverForText() -> (kind: ServerKind, isSet: Bool) {
        guard let configuration = try? configuration(warnAboutPermissions: false) else { return (.http, true) }
        return ((try? configuration.serverKind()) ?? .http, configuration.serverURL != nil)
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

    /// An exit status passes through; anything else is printed as one `recipes: …` line (control characters of a
    /// path or a server's message shown as spaces) and becomes exit status 1.
    private func report(_ error: any Error) -> any Error {
        if let exit = error as? ExitCode { return exit }
        let message = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
        console.err("recipes: \(TerminalText.clean(message))\n")
        return ExitCode.failure
    }
}

extension ParsableCommand {
    /// The `--home` given before or after the subcommand name (after wins).
    static func homeOption(_ global: GlobalOptions, _ root: RecipesCommand) -> String? {
        global.home ?? root.home
    }
}
