import ArgumentParser
import Foundation

/// `recipes cron`: the crontab line that runs `recipes sync --background` for this home.
struct CronCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cron",
        abstract: "Install, remove or show the crontab line that runs `recipes sync --background` for this home.",
        discussion: """
            The line runs this executable by absolute path (the installed one on PATH when this one runs from a build \
            folder, which `make clean` removes) with the environment cron needs to find this home \
            (RECIPES_HOME when --home or $RECIPES_HOME names it, else $XDG_DATA_HOME and $XDG_CONFIG_HOME when set) \
            and ends with the tag `# recipes-sync home=<home>`, so that each home has one line and the rest of your \
            crontab is left as it is. Tokens never go into the crontab: keep the server's URL and token in config.toml. \
            A warning says so when no cron daemon runs on this machine.
            """,
        subcommands: [Install.self, Uninstall.self, Show.self])

    /// `cron install [--every MINUTES]`: adds this home's line, or updates it in place.
    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add this home's sync line to your crontab (installing again updates it; there is only ever one).")
        @ParentCommand var cron: CronCommand
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: ArgumentHelp(
            "How often: \(CronSchedule.acceptedValues).", valueName: "MINUTES"))
        var every: Int = CronSchedule.defaultMinutes

        func validate() throws {
            do {
                _ = try CronSchedule(everyMinutes: every)
            } catch {
                throw ValidationError(error.message)
            }
        }

        func run() throws {
            let context = CommandContext(homeOption: Self.homeOption(global, cron.root))
            try context.reportingFailures {
                let home = context.home.url.path
                let executable: String
                switch CronExecutable.choose(
                    running: try CrontabEntry.runningExecutable(), searchPath: context.environment["PATH"],
                    isExecutable: FileManager.default.isExecutableFile(atPath:))
                {
                case .running(let path):
                    executable = path
                case .installed(let path, let running):
                    executable = path
                    context.console.err("note: this recipes runs from a build folder (\(running)); the line runs the "
                        + "installed \(path), which `make clean` leaves alone\n")
                case .refused(let words):
                    throw CommandLineError(words)
                }
                let entry = CrontabEntry(
                    schedule: try CronSchedule(everyMinutes: every), executable: executable,
                    home: home,
                    assignments: CrontabEntry.assignments(
                        for: context.home, environment: context.environment, accountHome: CrontabEntry.accountHome()))
                let line = try entry.line()
                let crontab = try Crontab(environment: context.environment)
                let before = try crontab.read()
                let after = CrontabEntry.installing(line, home: home, in: before)
                if after != before { try crontab.write(after) }
                context.console.out("installed: \(line)\n")
                if !CronDaemon.isRunning() { context.console.err(CronDaemon.warning + "\n") }
                noteUnseenEnvironment(context)
            }
        }

        /// Says on stderr which of the server settings come from this shell's environment, which cron will not see,
        /// and how to keep them in config.toml instead; never prints their values.
        private func noteUnseenEnvironment(_ context: CommandContext) {
            var recipes = "recipes"
            if Self.homeOption(global, cron.root) != nil {
                recipes += " --home '" + context.home.url.path.replacing("'", with: #"'\''"#) + "'"
            }
            for key in ConfigKey.allCases {
                guard let variable = key.environmentVariable, let value = context.environment[variable], !value.isEmpty
                else { continue }
                let how = switch key {
                case .serverToken: "`\(recipes) config set \(key.rawValue) -` (reads it from standard input)"
                case .serverCABundle: "`\(recipes) config set \(key.rawValue) FILE`"
                default: "`\(recipes) config set \(key.rawValue) URL`"
                }
                context.console.err("note: $\(variable) is set in this shell but cron will not see it; store it with \(how)\n")
            }
        }
    }

    /// `cron uninstall`: removes this home's line and nothing else.
    struct Uninstall: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove this home's sync line from your crontab (exit 0 also when there is none).")
        @ParentCommand var cron: CronCommand
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let context = CommandContext(homeOption: Self.homeOption(global, cron.root))
            try context.reportingFailures {
                let home = context.home.url.path
                let crontab = try Crontab(environment: context.environment)
                let (after, removed) = CrontabEntry.removing(home: home, from: try crontab.read())
                guard !removed.isEmpty else {
                    context.console.out("no recipes sync line for \(home) in the crontab\n")
                    return
                }
                try crontab.write(after)
                context.console.out(removed.map { "removed: \($0)\n" }.joined())
            }
        }
    }

    /// `cron show`: prints this home's line; exit 1 when there is none.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print this home's sync line from your crontab (exit 1 when there is none).")
        @ParentCommand var cron: CronCommand
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let context = CommandContext(homeOption: Self.homeOption(global, cron.root))
            try context.reportingFailures {
                let home = context.home.url.path
                let lines = CrontabEntry.lines(ofHome: home, in: try Crontab(environment: context.environment).read())
                guard !lines.isEmpty else {
                    context.console.err("no recipes sync line for \(home) in the crontab\n")
                    throw ExitCode.failure
                }
                context.console.out(lines.map { $0 + "\n" }.joined())
            }
        }
    }

    @ParentCommand var root: RecipesCommand
}
