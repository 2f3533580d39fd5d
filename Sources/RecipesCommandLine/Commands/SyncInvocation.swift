import Foundation
import RecipeModels
import RecipeStore
import RecipeSync
import Transport

/// One sync as `recipes sync` and the REPL's `sync` run it: configuration, output, Ctrl-C, the run, the summary.
struct SyncInvocation: Equatable {
    /// Exactly these recipes (by id or uuid), or every due one.
    var ids: [RecipeReference]?
    /// `--jobs` (exactly that many transfers at once), else `sync.jobs` and `sync.max_connections` from the
    /// configuration.
    var jobs: Int?
    /// `--max-wait` in seconds.
    var maxWait: Double = 30
    /// `--wait-for-network` in seconds.
    var waitForNetwork: Double = 0
    /// `--pull-only` / `--push-only`, else both.
    var direction: SyncOptions.Direction = .both
    /// How the run is shown.
    var mode: SyncOutputMode
    /// `--verbose`: on a terminal, a line for every recipe pulled and image downloaded, not only a count.
    var verbose = false
    /// Whether a second Ctrl-C ends the process at once (exit 130): yes for `recipes sync`, no in the REPL, whose
    /// Ctrl-C never ends the session (a background job may be running).
    var exitOnSecondInterrupt = true
    /// The words of the commands the output advises: a shell's, or the REPL's for its `sync`.
    var dialect: CommandDialect = .shell

    /// Runs the sync of `context`'s home and returns its summary, opening the store only when there may be
    /// something to do: without ids, a home with nothing to push (`RecipeStore.idleFeedCursor`) whose server has
    /// nothing new after its cursor (`FeedCheck`), or cannot be reached, ends without it (cron's usual run).
    func run(context: CommandContext, configuration: ClientConfiguration) async throws -> SyncSummary {
        let cursor = try ids == nil ? RecipeStore.idleFeedCursor(home: context.home) : nil
        let store = cursor == nil ? try context.openStore() : nil  // a refused database is reported before a bad server.url
        let settings = try Self.settings(configuration)  // which is reported even when nothing is due
        guard let store else {
            var summary = SyncSummary()  // what `SyncRun` returns when nothing is due or waiting
            // A Mealie has no changes feed to ask with one request: its run pulls (a page of the list and a count).
            if settings.kind == .mealie, direction != .pushOnly, settings.api != nil {
                return try await run(context: context, store: context.openStore(), settings: settings, configuration: configuration)
            }
            if direction != .pushOnly, let cursor, settings.api != nil {
                switch await FeedCheck.ask(settings, after: cursor) {
                case .nothingNew: break
                case .unreachable(let reason): summary.pullStopped = PullStop(.unreachable, reason)
                case .setupMistake(let words): summary.setupProblem = words
                case .changes:
                    return try await run(context: context, store: context.openStore(), settings: settings, configuration: configuration)
                }
            }
            output(context, server: ServerKind(settings.kind)).finish(summary)
            return summary
        }
        return try await run(context: context, store: store, settings: settings, configuration: configuration)
    }

    /// Runs the sync on `store` (the REPL's, open already) and returns its summary.
    func run(context: CommandContext, store: RecipeStore, configuration: ClientConfiguration) async throws -> SyncSummary {
        try await run(context: context, store: store, settings: Self.settings(configuration), configuration: configuration)
    }

    /// The run on `store` (open already), each event handed to `emit`, not started: for the REPL's background job,
    /// which shows its events its own way and is stopped by `cancel %<job>` rather than by Ctrl-C.
    func prepareRun(
        store: RecipeStore, configuration: ClientConfiguration, emit: @escaping @Sendable (SyncEvent) -> Void
    ) throws -> SyncRun {
        SyncRun(
            store: store, settings: try Self.settings(configuration),
            options: try options(configuration: configuration, store: store), emit: emit)
    }

    /// The run's options, the recipes named by uuid found by their ids in `store`, its connections those of
    /// `configuration` unless `--jobs` chose them (`SyncOptions.connections(of:jobs:)`).
    func options(configuration: ClientConfiguration, store: RecipeStore) throws -> SyncOptions {
        SyncOptions(
            ids: try ids.map(store.recipeIDs), maxWait: .milliseconds(Int64(maxWait * 1000)),
            waitForNetwork: .milliseconds(Int64(waitForNetwork * 1000)), direction: direction
        ).connections(of: configuration, jobs: jobs)
    }

    private func run(
        context: CommandContext, store: RecipeStore, settings: SyncSettings, configuration: ClientConfiguration
    ) async throws -> SyncSummary {
        let output = output(context, server: ServerKind(settings.kind))
        if mode == .terminal, direction != .pullOnly {
            // The live display counts against the recipes due now (those named), from its first frame.
            let expected = try ids.map { try store.recipes(ids: store.recipeIDs($0)) } ?? store.dueRecipes(at: settings.now())
            output.expect(titles: expected.map(\.title))
        }
        let run = SyncRun(store: store, settings: settings, options: try options(configuration: configuration, store: store)) { event in
            output.emit(event)
        }
        let summary = try await InterruptSignal.whileRunning(exitOnSecond: exitOnSecondInterrupt, onInterrupt: { run.interrupt() }) {
            try await run.run()
        }
        output.finish(summary)
        return summary
    }

    /// The server, its kind, token and CA bundle of `configuration`; throws when its server URL is not one `ServerAPI`
    /// takes, or its kind is not a kind.
    static func settings(_ configuration: ClientConfiguration) throws -> SyncSettings {
        let kind: DestinationKind = switch try configuration.serverKind() {
        case .http: .http
        case .mealie: .mealie
        }
        var api: ServerAPI?
        if let url = configuration.serverURL {
            guard let parsed = ServerAPI(baseURL: url) else { throw ConfigKey.invalidServerURL(url) }
            api = parsed
        }
        return SyncSettings(api: api, kind: kind, token: configuration.token, caBundlePath: configuration.caBundle)
    }

    /// The run's output, showing the versions of a `server` of that kind in its words.
    private func output(_ context: CommandContext, server: ServerKind) -> any SyncOutput {
        makeSyncOutput(
            mode: mode, console: context.console, logsDirectory: context.home.logsURL, environment: context.environment,
            dialect: dialect, server: server, verbose: verbose)
    }
}

extension SyncOptions {
    /// These options with the connections a sync of `configuration` opens: `--jobs N` (`chosen`) is exactly N
    /// transfers at once on every link; without it, a run starts with `sync.jobs` and a long round trip opens more
    /// (`ConnectionPlan`), up to `sync.max_connections`, or `sync.jobs` when that is larger.
    func connections(of configuration: ClientConfiguration, jobs chosen: Int?) -> SyncOptions {
        if let chosen { return exactly(jobs: chosen) }
        var options = self
        options.jobs = configuration.jobs
        options.maxConnections = configuration.maxConnections
        return options
    }
}
