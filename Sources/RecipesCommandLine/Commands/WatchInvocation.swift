import ArgumentParser
import Foundation
import RecipeStore
import RecipeSync
import SyncWatch
#if canImport(Glibc)
import Glibc
#endif

/// `recipes sync --watch`: takes the home's watch lock, opens the store and runs the watcher until SIGTERM or Ctrl-C.
struct WatchInvocation {
    /// `--jobs` (exactly that many transfers at once), else `sync.jobs` and `sync.max_connections` from the
    /// configuration.
    var jobs: Int?
    /// `--max-wait` in seconds.
    var maxWait: Double = 30
    /// How passes and notices are shown: `.background` (the log, stderr for a person), `.plain` or `.json`.
    var mode: SyncOutputMode

    /// Runs the watcher of `context`'s home; the exit status (0 once stopped by a signal).
    func run(context: CommandContext) async -> Int32 {
        do {
            try await context.reportingFailures {
                let configuration = try self.configuration(context)
                try context.home.createDirectories()
                let lock = try WatchLock(home: context.home)
                let store = try context.openStore()
                let output = WatchCommandOutput(mode: mode, context: context, server: ServerKind(configuration.settings.kind))
                if mode == .background, isatty(STDERR_FILENO) == 1 {
                    context.console.err(
                        "recipes: watching \(context.home.url.path) (pid \(getpid())); events go to "
                            + "\(context.home.logsURL.appendingPathComponent("sync.log").path); Ctrl-C stops\n")
                }
                let watcher = Watcher(
                    store: store, configuration: configuration,
                    reload: {
                        let reloaded = try self.configuration(context, reloading: true)
                        output.showVersions(of: ServerKind(reloaded.settings.kind))
                        return reloaded
                    },
                    output: output)
                try await watcher.run()
                withExtendedLifetime(lock) {}
            }
        } catch {
            return (error as? ExitCode)?.rawValue ?? ExitCode.failure.rawValue
        }
        return 0
    }

    /// The watcher's configuration from `context`'s configuration file and environment; throws when no server is set
    /// (a watcher has nothing to do without one) or the settings are refused. `reloading`: for a watcher that runs
    /// (SIGHUP), which is told how to have it read again, not to start.
    func configuration(_ context: CommandContext, reloading: Bool = false) throws -> WatchConfiguration {
        let configuration = try context.configuration()
        let settings = try SyncInvocation.settings(configuration)
        guard settings.api != nil else {
            let then = reloading ? "then send SIGHUP (`kill -HUP \(getpid())`) to have it read again" : "then start the watcher"
            throw CommandLineError(
                "no server to sync with; set one with `recipes config set server.url URL` (or RECIPES_SERVER_URL), " + then)
        }
        let options = SyncOptions(maxWait: .milliseconds(Int64(maxWait * 1000))).connections(of: configuration, jobs: jobs)
        return WatchConfiguration(settings: settings, options: options)
    }
}
