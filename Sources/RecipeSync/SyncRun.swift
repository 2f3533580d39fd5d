import Foundation
import Locking
import MealieAPI
import OperationEngine
import RecipeModels
import RecipeStore
import Transport

/// One `recipes sync`: every due recipe (or the ones asked for) becomes a chain on the operation engine — its image
/// (asked for by SHA-256, written when the destination lacks it), then its JSON from the outbox, or its deletion, over
/// the run's `Destination` (`HTTPDestination` or `MealieDestination`, by `server.kind`) — guarded
/// by a per-recipe mutual-exclusion condition in this process, a lease in the database across processes, and a
/// reachability condition; retried with backoff; cancellable from any process.
///
/// ```swift
/// let run = SyncRun(store: store, settings: settings, options: SyncOptions(jobs: 4)) { event in print(event) }
/// let summary = try await run.run()          // run.interrupt() from a signal handler stops it cleanly
/// print(summary.verdict)
/// ```
public final class SyncRun: Sendable {
    let store: RecipeStore
    let settings: SyncSettings
    let options: SyncOptions
    let emit: @Sendable (SyncEvent) -> Void
    let registry = ChainRegistry()
    let tally = Locked(SyncSummary())
    let throttle = Locked(ProgressThrottle())
    let setupFailure = Locked<(any Error)?>(nil)
    /// The check that waits for the network before anything is claimed, while it runs (so that Ctrl-C ends it).
    let networkCheck = Locked<AnyProcedure?>(nil)
    let outbox: Outbox
    /// Records chain ends and lets go of their files.
    let recorder: EndRecorder
    /// Watches this run's leases.
    let poller: LeasePoller
    /// Reports the recipes no chain runs for.
    let reports: RunReports
    /// The recipes whose conflict this run reported.
    let conflictsReported: Locked<Set<Int64>>

    /// Prepares a run; nothing happens until `run()`.
    public init(
        store: RecipeStore, settings: SyncSettings, options: SyncOptions,
        emit: @escaping @Sendable (SyncEvent) -> Void
    ) {
        self.store = store
        self.settings = settings
        self.options = options
        let conflictsReported = Locked<Set<Int64>>([])
        self.conflictsReported = conflictsReported
        self.emit = { event in
            if event.kind == .conflict { conflictsReported.withLock { _ = $0.insert(event.id) } }
            emit(event)
        }
        let outbox = Outbox(directory: store.home.outboxURL, writer: settings.owner)
        self.outbox = outbox
        self.recorder = EndRecorder(store: store, owner: settings.owner, outbox: outbox, tally: tally, emit: self.emit)
        self.poller = LeasePoller(store: store, settings: settings, registry: registry)
        self.reports = RunReports(store: store, settings: settings, tally: tally, emit: self.emit)
    }

    /// Stops the run cleanly (Ctrl-C): running transfers are aborted, recipes stay as they were for a later run,
    /// every lease is released.
    public func interrupt() {
        registry.stopAll(.interrupted)
        networkCheck.withLock { $0 }?.cancel(reason: .requested(ChainRegistry.words(.interrupted)))
    }

    /// Runs to the end and says how it went; throws only when the run cannot start or the database fails.
    public func run() async throws -> SyncSummary {
        let now = settings.now()
        if let ids = options.ids { _ = try store.recipes(ids: ids) }  // unknown ids: fail before anything changes
        let due = try options.pushes && (options.ids != nil || store.hasDueWork(at: now))
        let pulls = options.pulls && settings.api != nil
        // libcurl loads and sets up TLS (a few milliseconds) on a thread of its own while the garbage is collected.
        let preparing = (due || pulls) && settings.api != nil
        if preparing { HTTPClient.prepare() }
        defer { if preparing { HTTPClient.finishPreparing() } }
        try collectGarbage(now: now)
        if options.ids == nil, options.pushes {
            // Recipes in backoff are not claimed by this run: reported once, counted as still waiting; failed and
            // cancelled ones wait for a person: reminded of.
            try reports.reportWaiting(now: now)
            try reports.reportStopped(now: now)
            if !due && !pulls {
                try reports.reportConflicts(except: [], at: now)
                return tally.withLock { $0 }
            }
        }

        // Only work to do with a server needs one: cron may run before the user configured one.
        guard let api = settings.api else { throw SyncRunError.noServer }
        guard let reachable = settings.reachability.condition(for: api.baseURL), await serverIsReachable(reachable) else {
            if options.ids == nil { try reports.reportConflicts(except: [], at: settings.now()) }
            return try reports.reportOffline(api, ids: due ? options.ids : [], since: settings.now(), pulling: pulls)
        }

        var configuration = HTTPClientConfiguration(
            credentials: .of(settings.token, at: api.baseURL), caBundlePath: settings.caBundlePath,
            maxConcurrentTransfers: options.connectionCeiling)
        // `jobs` transfers at once until the destination has measured the round trip (ConnectionPlan).
        configuration.startingConcurrentTransfers = options.jobs
        // Refused credentials stop the run: requests queued behind the refused one are not sent with the same token.
        // (A Mealie's 403 refuses one recipe, not the token: docs/mealie.md.)
        configuration.haltingStatuses = settings.kind == .mealie ? [401] : [401, 403]
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: configuration)
        } catch {
            // Setting up names files and libraries, never the token.
            throw SyncRunError.clientSetup(error.message + (StepFailure.advice(for: error.kind).map { "; " + $0 } ?? ""))
        }
        // The one place the run chooses its destination's kind (`server.kind`).
        let destination: any Destination
        switch settings.kind {
        case .http:
            destination = HTTPDestination(api: api, client: client, reachability: settings.reachability, settings: settings)
        case .mealie:
            guard let server = MealieServer(baseURL: api.baseURL) else { throw SyncRunError.clientSetup("server.url is not a Mealie's base URL") }
            destination = MealieDestination(
                requests: MealieDestinationRequests(server: server, client: client, token: settings.token, now: settings.now),
                store: store, state: MealieRunState())
        }
        // Twice as many steps as transfers run at once, so that a step's database commit and outbox file are prepared
        // while other recipes' bytes are on the wire.
        let queue = ProcedureQueue(
            maxConcurrentProcedures: options.jobs * 2, clock: settings.clock, random: settings.random,
            taskExecutor: client.taskExecutor)
        // The link decides how many transfers run at once (`ConnectionPlan`: more on a long round trip, at most
        // `maxConnections`), from the round trip of the destination's first request, which goes beside the pull's
        // first page rather than before it; the push waits for the plan.
        let measured = Locked<Duration?>(nil)
        let planning = Task {
            let roundTrip = await destination.roundTrip()
            measured.withLock { $0 = roundTrip }
            let connections = ConnectionPlan.connections(
                roundTrip: roundTrip, bytesPerSecond: nil, floor: options.jobs, ceiling: options.connectionCeiling)
            client.setConcurrentTransfers(connections)
            queue.setMaxConcurrentProcedures(connections * 2)
        }
        let steps = ChainSteps(
            destination: destination, store: store, settings: settings, outbox: outbox, recorder: recorder,
            poller: poller, report: { claim, step, words in
                var event = self.makeEvent(.merged, claim, step: step, error: words)
                event.version = claim.recipe.sync.serverVersion  // the server's version the merge is based on
                self.emit(event)
            })
        let parts = UploadChain.Parts(
            steps: steps, retry: retryPolicy,
            reachability: reachable,
            observe: { claim, step in StepObserver(run: self, claim: claim, step: step) })
        let feeder = ChainFeeder(store: store, settings: settings, options: options, registry: registry, reports: reports)

        let polling = Task { await poller.run() }
        let recording = Task { await recorder.recordPeriodically(every: settings.pollInterval, clock: settings.clock) }
        do {
            let pull = PullRun(
                store: store, settings: settings, steps: steps, queue: queue, registry: registry, parts: parts,
                tally: tally, emit: emit, roundTrip: { measured.withLock { $0 } })
            if pulls { _ = try await pull.run() }
            // A merge leaves its draft pending: it goes to the server in the same run.
            if options.pushes, !registry.isStopped, try options.ids != nil || store.hasDueWork(at: settings.now()) {
                await withTaskCancellationHandler { await planning.value } onCancel: { planning.cancel() }
                try await feeder.feed(queue, anticipate: { claims in
                    destination.anticipate(images: claims.compactMap { $0.imageToSend?.sha256 })
                }) { claim in
                    let chain = UploadChain(claim, parts)
                    return self.start(chain.group, of: claim, ending: chain.ending, parts: parts, queue: queue)
                }
                // What this run wrote comes back in the feed: read it now, so that the next run finds nothing new
                // (and cron's idle run stays idle), with whatever another device wrote meanwhile.
                recorder.recordEnds()
                if pulls, !registry.isStopped, tally.withLock({ $0.done > 0 }) { _ = try await pull.run() }
            } else if options.pushes, tally.withLock({ $0.credentialsRefused }) {
                try reports.reportNotSent(at: settings.now())
            }
        } catch {
            setupFailure.withLock { $0 = error }
            registry.stopAll(.interrupted)
            await queue.waitUntilAllFinished()
        }
        polling.cancel()
        recording.cancel()
        _ = await polling.value
        _ = await recording.value
        // A run that ended before its push (nothing due, a set-up mistake, Ctrl-C) still waits for its health ask:
        // the process must not exit while that request's TLS handshake runs on the transport thread (OpenSSL's exit
        // handlers would free what it uses: exit 139).
        planning.cancel()
        await planning.value
        recorder.recordEnds()
        if options.ids == nil, setupFailure.withLock({ $0 == nil }) {
            try? reports.reportConflicts(except: conflictsReported.withLock { $0 }, at: settings.now())
        }
        try? store.releaseLeases(owner: settings.owner)
        recorder.removeFinishedFiles()
        // Files the pull made unneeded (a draft the server turned out to have, an image no recipe shows any more) go
        // now, not a run later.
        if tally.withLock({ $0.pulled + $0.merged + $0.removed + $0.done > 0 }) {
            try? collectGarbage(now: settings.now())
            _ = try? store.collectImageGarbage(isOwnerAlive: settings.isOwnerAlive)
        }
        if let error = setupFailure.withLock({ $0 }) { throw error }
        if settings.kind == .http, tally.withLock({ $0.setupProblem != nil }),
           let words = await MealieHint.words(baseURL: api.baseURL, client: client) {
            tally.withLock { $0.setupProblem = words }
        }
        let fallbacks = destination.fallbacks()
        return tally.withLock { tally in
            tally.fallbacks = fallbacks
            return tally
        }
    }

    /// Registers the chain `group` of `claim` (an `UploadChain`'s, or the `MergeChain`'s after a stale write) and
    /// returns it for the queue; a chain stopped before it began (Ctrl-C, `recipes cancel` seen by the poller) is
    /// cancelled first, so that it ends at once and is concluded as any other.
    func start(
        _ group: GroupProcedure<Void>, of claim: SyncClaim, ending: @escaping @Sendable (ProcedureOutcome) -> ChainEnd,
        parts: UploadChain.Parts, queue: ProcedureQueue
    ) -> AnyProcedure {
        group.addObserver(ChainEndObserver(run: self, claim: claim, ending: ending, parts: parts, queue: queue))
        if let reason = registry.register(claim.recipe.id, chain: group.erased) {
            group.cancel(reason: .requested(ChainRegistry.words(reason)))
        }
        return group.erased
    }

    /// Whether the server is reachable, waiting up to `--wait-for-network` for it: one procedure with the
    /// reachability condition every step has (`Reachability`) and the run's retry policy, so that the engine's own
    /// wait for the network does the waiting, on the run's clock.
    func serverIsReachable(_ reachable: ReachabilityCondition) async -> Bool {
        let check = Procedure<Void>(
            name: "reachability of \(reachable.host):\(reachable.port)", conditions: [reachable], retry: retryPolicy) { _ in }
        let queue = ProcedureQueue(maxConcurrentProcedures: 1, clock: settings.clock, random: settings.random)
        networkCheck.withLock { $0 = check.erased }
        if registry.isStopped { check.cancel(reason: .requested(ChainRegistry.words(.interrupted))) }
        queue.add(check)
        let reachable = await check.waitUntilFinished().isSuccess
        networkCheck.withLock { $0 = nil }
        return reachable
    }

    /// The contract's retry policy with this run's `--max-wait` and `--wait-for-network`.
    var retryPolicy: RetryPolicy {
        RetryPolicy(
            maxAttempts: settings.maxAttempts, baseDelay: settings.baseDelay, maxDelay: settings.maxDelay,
            maxInRunDelay: options.maxWait, networkWait: options.waitForNetwork,
            networkPollInterval: settings.networkPollInterval)
    }

    // MARK: Outcomes

    /// Decides how a chain ended and queues it for `recordEnds`, which records it in the database, lets go of the local
    /// files it no longer needs, reports it, and counts it in the summary.
    func conclude(
        _ claim: SyncClaim, _ outcome: ProcedureOutcome, step: SyncEvent.Step?, attempts: Int,
        confirmedImage: ConfirmedImage? = nil, pushed: PushResult? = nil
    ) {
        let ending = ChainConclusion.Ending(
            claim: claim, outcome: outcome, step: step, attempts: attempts, pushed: pushed,
            stop: registry.stopReason(claim.recipe.id))
        let conclusion = ChainConclusion.decide(ending, now: settings.now(), retryCap: retryPolicy.maxRetryAfter)
        if let stop = conclusion.stopsRun { registry.stopAll(stop) }
        tally.withLock { $0.add(conclusion.tally) }
        for early in conclusion.events.dropLast() { emit(early) }
        let result = conclusion.result
        let event = conclusion.events[conclusion.events.count - 1]
        throttle.withLock { $0.forget(claim.recipe.id) }
        recorder.add(EndRecorder.PendingEnd(ending: ChainEnding(claim, result, confirmedImage: confirmedImage), event: event))
    }

    /// An event about `claim`.
    func makeEvent(
        _ kind: SyncEvent.Kind, _ claim: SyncClaim, step: SyncEvent.Step? = nil, bytes: Int64? = nil,
        total: Int64? = nil, attempt: Int? = nil, delay: Double? = nil, error: String? = nil, now: Date? = nil
    ) -> SyncEvent {
        SyncEvent(
            kind, id: claim.recipe.id, uuid: claim.recipe.uuid, title: claim.recipe.title, step: step,
            revision: claim.revision, bytes: bytes, total: total, attempt: attempt, delay: delay, error: error,
            time: now ?? settings.now())
    }

    // MARK: Housekeeping

    /// Collects media copies and outbox files no unsynced work refers to (a directory listing each when empty).
    func collectGarbage(now: Date) throws {
        try store.collectGarbage(isOwnerAlive: settings.isOwnerAlive)
        try store.collectOutboxGarbage(now: now, isOwnerAlive: settings.isOwnerAlive)
    }
}

/// Why a run could not start.
public enum SyncRunError: Error, LocalizedError, Equatable {
    /// Work is due but no server is configured.
    case noServer
    /// The HTTP client could not be set up (a CA bundle, libcurl): what went wrong and what to do.
    case clientSetup(String)

    public var errorDescription: String? {
        switch self {
        case .noServer:
            "no server to upload to; set one with `recipes config set server.url URL` (or RECIPES_SERVER_URL)"
        case .clientSetup(let message):
            message
        }
    }
}
