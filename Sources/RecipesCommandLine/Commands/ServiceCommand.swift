import ArgumentParser
import Foundation
import SyncWatch

/// `recipes service`: the systemd user units that keep this home in sync.
struct ServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Install, remove, show or check the systemd user units that keep this home in sync.",
        discussion: """
            The units live in ${XDG_CONFIG_HOME:-~/.config}/systemd/user/ and run the installed recipes by its stable \
            path for this home: `recipes sync --watch` (restarted on failure), or with --timer a oneshot \
            `recipes sync --background` started every N minutes by a timer (Persistent=true: a run missed while the \
            machine slept happens at wake-up). Each file starts with the tag `# recipes-service home=<home>`; only \
            files with this home's tag are ever changed or removed. Without a reachable user manager, the commands \
            to run are printed instead. For machines without systemd: `recipes cron install`.
            """,
        subcommands: [Install.self, Uninstall.self, Show.self, Status.self])

    @ParentCommand var root: RecipesCommand

    /// `service install [--timer [--every MINUTES]]`.
    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write this home's units and start them (installing again updates them; there is only one set).")
        @ParentCommand var service: ServiceCommand
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "A oneshot sync every few minutes instead of a watcher.") var timer = false
        @Option(name: .long, help: ArgumentHelp("With --timer, how often: \(CronSchedule.acceptedValues).", valueName: "MINUTES"))
        var every: Int?

        func validate() throws {
            guard let every else { return }
            guard timer else { throw ValidationError("--every goes with --timer; the watcher syncs whenever there is something to do") }
            do { _ = try CronSchedule(everyMinutes: every) } catch { throw ValidationError(error.message) }
        }

        func run() throws {
            let context = CommandContext(homeOption: Self.homeOption(global, service.root))
            try context.reportingFailures {
                let home = context.home.url.path
                let manager = UserManager(environment: context.environment)
                let units = SystemdUnits(
                    name: SystemdUnits.name(for: context.home), home: home,
                    executable: try InstalledExecutable.path(environment: context.environment),
                    assignments: CrontabEntry.assignments(
                        for: context.home, environment: context.environment, accountHome: CrontabEntry.accountHome()),
                    kind: timer ? .timer(every: try CronSchedule(everyMinutes: every ?? CronSchedule.defaultMinutes)) : .watch,
                    systemdVersion: manager.version)
                let folder = UserUnitFolder(environment: context.environment)
                let files = try units.files()
                let reachable = manager.isReachable
                let before = folder.files(ofHome: home).map(\.name)
                let leaving = before.filter { name in !files.contains { $0.name == name } }
                // Units about to go are stopped while their files still say what they are.
                if reachable, !leaving.isEmpty { try manager.run(["disable", "--now"] + leaving) }
                let (written, removed) = try folder.install(files, home: home)
                for file in files {
                    context.console.out("\(written.contains(file.name) ? "installed" : "unchanged"): \(folder.path(file.name))\n")
                }
                for name in removed { context.console.out("removed: \(folder.path(name))\n") }
                let commands = Self.commands(units)
                if reachable {
                    for command in commands { try manager.run(command) }
                    context.console.out("started: \(units.enabledUnit) (`systemctl --user status \(units.enabledUnit)`)\n")
                } else {
                    context.console.out(
                        "systemd's user manager cannot be reached from here; to start the units, run:\n"
                            + commands.map { "  systemctl --user \($0.joined(separator: " "))\n" }.joined())
                }
                // A watcher that runs without these units was started by hand: the service's cannot take the home's
                // lock while it runs (it would fail and be restarted every 10 s); a timer's syncs would run beside it.
                if before.isEmpty, let pid = WatchLock.runningWatcher(of: context.home) {
                    context.console.out(
                        "note: a watcher started by hand (pid \(pid)) already watches this home; "
                            + (timer ? "the timer's syncs run beside it, which it makes unneeded"
                                : "the service's watcher cannot start while it runs")
                            + ": stop it (`kill \(pid)`, or Ctrl-C where it runs)\n")
                }
                if !UserManager.lingers {
                    context.console.out(
                        "note: user units run while you are logged in; to run them without a login session: "
                            + "loginctl enable-linger \(UserManager.userName)\n")
                }
            }
        }

        /// The `systemctl --user` commands that load and start `units` (a watcher is restarted so that it runs the
        /// new unit; a timer replaces a watcher installed before it).
        static func commands(_ units: SystemdUnits) -> [[String]] {
            switch units.kind {
            case .watch:
                [["daemon-reload"], ["enable", units.name + ".service"], ["restart", units.name + ".service"]]
            case .timer:
                [["daemon-reload"], ["stop", units.name + ".service"], ["enable", "--now", units.name + ".timer"]]
            }
        }
    }

    /// `service uninstall`.
    struct Uninstall: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop and remove this home's units, and nothing else (exit 0 also when there are none).")
        @ParentCommand var service: ServiceCommand
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let context = CommandContext(homeOption: Self.homeOption(global, service.root))
            try context.reportingFailures {
                let home = context.home.url.path
                let folder = UserUnitFolder(environment: context.environment)
                let names = folder.files(ofHome: home).map(\.name)
                guard !names.isEmpty else {
                    context.console.out("no recipes units for \(home) in \(folder.url.path)\n")
                    return
                }
                let manager = UserManager(environment: context.environment)
                let reachable = manager.isReachable
                if reachable { try manager.run(["disable", "--now"] + names) }
                for name in try folder.uninstall(home: home) { context.console.out("removed: \(folder.path(name))\n") }
                if reachable {
                    try manager.run(["daemon-reload"])
                } else {
                    context.console.out(
                        "systemd's user manager cannot be reached from here; if it runs the units, run:\n"
                            + "  systemctl --user stop \(names.joined(separator: " "))\n  systemctl --user daemon-reload\n")
                }
            }
        }
    }

    /// `service show`.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print this home's unit files (exit 1 when there are none).")
        @ParentCommand var service: ServiceCommand
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let context = CommandContext(homeOption: Self.homeOption(global, service.root))
            try context.reportingFailures {
                let folder = UserUnitFolder(environment: context.environment)
                let files = folder.files(ofHome: context.home.url.path)
                guard !files.isEmpty else {
                    context.console.err("no recipes units for \(context.home.url.path) in \(folder.url.path)\n")
                    throw ExitCode.failure
                }
                context.console.out(files.map { "# \(folder.path($0.name))\n\($0.text)" }.joined(separator: "\n"))
            }
        }
    }

    /// `service status`.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say which of this home's units are installed, enabled and running, and which watcher runs (exit 1 when none is installed).")
        @ParentCommand var service: ServiceCommand
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let context = CommandContext(homeOption: Self.homeOption(global, service.root))
            try context.reportingFailures {
                let home = context.home.url.path
                let folder = UserUnitFolder(environment: context.environment)
                let names = folder.files(ofHome: home).map(\.name)
                let watcher = WatchLock.runningWatcher(of: context.home)
                context.console.out("watcher: " + (watcher.map { "running (pid \($0))" } ?? "not running") + "\n")
                guard !names.isEmpty else {
                    context.console.out("units: none installed for \(home) in \(folder.url.path)\n")
                    throw ExitCode.failure
                }
                let manager = UserManager(environment: context.environment)
                let reachable = manager.isReachable
                for name in names {
                    var line = "\(name): installed (\(folder.path(name)))"
                    if reachable {
                        line += ", \(manager.ask(["is-enabled", name]) ?? "unknown"), \(manager.ask(["is-active", name]) ?? "unknown")"
                    }
                    context.console.out(line + "\n")
                }
                if !reachable { context.console.out("systemd's user manager cannot be reached from here\n") }
            }
        }
    }
}
