import Foundation
import RecipeModels
import RecipeStore
import RecipeSync
import Transport

/// One sync as `recipes sync` and the REPL's `sync` run it: configuration, output, Ctrl-C, the run, the summary.
struct SyncInvocation: Equatable {
    /// Exactly these recipes, or every due one.
    var ids: [Int64]?
    /// `--jobs`, else `sync.jobs` from the configuration.
    var jobs: Int?
    /// `--max-wait` in seconds.
    var maxWait: Double = 30
    /// `--wait-for-network` in seconds.
    var waitForNetwork: Double = 0
    /// How the run is shown.
    var mode: SyncOutputMode

    /// Runs the sync on `store` and returns its summary (the exit status is the caller's to use).
    func run(context: CommandContext, store: RecipeStore, configuration: ClientConfiguration) async throws -> SyncSummary {
        let output = makeSyncOutput(
            mode: mode, console: context.console, logsDirectory: context.home.logsURL, environment: context.environment)
        var api: ServerAPI?
        if let url = configuration.serverURL {
            guard let parsed = ServerAPI(baseURL: url) else { throw ConfigKey.invalidServerURL }
            api = parsed
        }
        let settings = SyncSettings(api: api, token: configuration.token, caBundlePath: configuration.caBundle)
        let options = SyncOptions(
            ids: ids, jobs: jobs ?? configuration.jobs, maxWait: .milliseconds(Int64(maxWait * 1000)),
            waitForNetwork: .milliseconds(Int64(waitForNetwork * 1000)))
        let run = SyncRun(store: store, settings: settings, options: options) { event in output.emit(event) }
        let summary = try await InterruptSignal.whileRunning(onInterrupt: { run.interrupt() }) {
            try await run.run()
        }
        output.finish(summary)
        return summary
    }
}
