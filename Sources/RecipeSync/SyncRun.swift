import Foundation
import Locking
import OperationEngine
import RecipeModels
import RecipeStore
import Transport

/// One `recipes sync`: every due recipe (or the ones asked for) becomes a chain on the operation engine — its image
/// (`HEAD` by SHA-256, then `PUT` when the server lacks it), then its JSON from the outbox, or a `DELETE` — guarded
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
    let outbox: Outbox
    /// Records chain ends and lets go of their files.
    let recorder: EndRecorder
    /// Watches this run's leases.
    let poller: LeasePoller
    /// Reports the recipes no chain runs for.
    let reports: RunReports

    /// Prepares a run; nothing happens until `run()`.
    public init(
        store: RecipeStore, settings: SyncSettings, options: SyncOptions,
        emit: @escaping @Sendable (SyncEvent) -> Void
    ) {
        self.store = store
        self.settings = settings
        self.options = options
        self.emit = emit
        let outbox = Outbox(directory: store.home.outboxURL, writer: settings.owner)
        self.outbox = outbox
        self.recorder = EndRecorder(store: store, owner: settings.owner, outbox: outbox, tally: tally, emit: emit)
        self.poller = LeasePoller(store: store, settings: settings, registry: registry)
        self.reports = RunReports(store: store, settings: settings, tally: tally, emit: emit)
    }

    /// Stops the run cleanly (Ctrl-C): running transfers are aborted, recipes stay as they were for a later run,
    /// every lease is released.
    public func interrupt() { registry.stopAll(.interrupted) }

    /// Runs to the end and says how it went; throws only when the run cannot start or the database fails.
    public func run() async throws -> SyncSummary {
        let now = settings.now()
        if let ids = options.ids { _ = try store.recipes(ids: ids) }  // unknown ids: fail before anything changes
        let due = try options.ids != nil || store.hasDueWork(at: now)
        // libcurl loads and sets up TLS (a few milliseconds) on a thread of its own while the garbage is collected.
        if due, settings.api != nil { HTTPClient.prepare() }
        try collectGarbage(now: now)
        if options.ids == nil {
            // Recipes in backoff are not claimed by this run: reported once, counted as still waiting.
            let summary = try reports.reportWaiting(now: now)
            if !due { return summary }
        }

        // Only work to send needs a server: cron may run before the user configured one.
        guard let api = settings.api else { throw SyncRunError.noServer }
        let reachability = CachedReachability(url: api.baseURL, probe: settings.probe)
        guard await waitForNetwork(api, reachability) else { return try reports.reportOffline(api, ids: options.ids, since: settings.now()) }

        var configuration = HTTPClientConfiguration(
            bearerToken: settings.token, caBundlePath: settings.caBundlePath, maxConcurrentTransfers: options.jobs)
        // Refused credentials stop the run: requests queued behind the refused one are not sent with the same token.
        configuration.haltingStatuses = [401, 403]
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: configuration)
        } catch {
            // Setting up names files and libraries, never the token.
            throw SyncRunError.clientSetup(error.message + (StepFailure.advice(for: error.kind).map { "; " + $0 } ?? ""))
        }
        // Twice `jobs` steps run at once, while the client lets only `jobs` transfers be in flight: a step's
        // database commit and outbox file are prepared while other recipes' bytes are on the wire (a 1,000-recipe
        // sync went from 2.48 s to 2.16 s on the benchmark machine).
        let queue = ProcedureQueue(
            maxConcurrentProcedures: options.jobs * 2, clock: settings.clock, random: settings.random,
            taskExecutor: client.taskExecutor)
        let requests = ChainRequests(
            api: api, client: client, reachability: reachability, store: store, settings: settings, outbox: outbox,
            recorder: recorder, poller: poller)
        let context = RunContext(
            requests: requests, queue: queue, reachability: reachability, host: ReachabilityProbe.hostAndPort(of: api.baseURL))

        let polling = Task { await poller.run() }
        let recording = Task { await recorder.recordPeriodically(every: settings.pollInterval, clock: settings.clock) }
        await feed(context)
        polling.cancel()
        recording.cancel()
        _ = await polling.value
        _ = await recording.value
        recorder.recordEnds()
        try? store.releaseLeases(owner: settings.owner)
        recorder.removeFinishedFiles()
        if let error = setupFailure.withLock({ $0 }) { throw error }
        return tally.withLock { $0 }
    }

    /// What every chain of a run shares.
    struct RunContext: Sendable {
        let requests: ChainRequests
        let queue: ProcedureQueue
        let reachability: CachedReachability
        /// The server's host and port, for every step's reachability condition (parsed once per run).
        let host: (host: String, port: Int)?
    }

    // MARK: Feeding

    /// Claims due recipes in batches and runs their chains, keeping at most a window of them in flight so that the
    /// memory of a run stays flat however many recipes are due.
    ///
    /// The first claim fills the window; the next ones come once half of it has ended. Each claim is a commit synced
    /// to disk that holds the database's write lock meanwhile: a window of 64 rather than 16 claims at least 32
    /// recipes at a time, a quarter of the commits of a long run.
    func feed(_ context: RunContext) async {
        let window = max(options.jobs * 16, 64)
        let gate = ChainGate()
        await withDiscardingTaskGroup { group in
            var cursor: Int64 = 0
            while !registry.isStopped {
                let batch: ClaimBatch
                do {
                    if let ids = options.ids {
                        batch = try store.claim(
                            ids: ids, owner: settings.owner, now: settings.now(),
                            leaseDuration: settings.leaseDuration, isOwnerAlive: settings.isOwnerAlive)
                        reports.reportAlreadySynced(ids: ids, batch: batch)
                    } else {
                        batch = try store.claimDue(
                            owner: settings.owner, now: settings.now(), leaseDuration: settings.leaseDuration,
                            limit: max(1, window - gate.running), after: cursor, isOwnerAlive: settings.isOwnerAlive)
                    }
                } catch {
                    setupFailure.withLock { $0 = error }
                    registry.stopAll(.interrupted)
                    break
                }
                cursor = batch.cursor
                for busy in batch.busy { reports.reportBusy(busy) }
                gate.started(batch.claims.count)
                for claim in batch.claims {
                    group.addTask(executorPreference: context.requests.client.taskExecutor) {
                        await self.runChain(claim, context)
                        gate.ended()
                    }
                }
                if options.ids != nil || batch.isExhausted { break }
                await gate.wait(untilAtMost: window / 2)
            }
        }
    }

    // MARK: One recipe

    /// Runs the chain of one claimed recipe to its end and queues its outcome for `recordEnds`.
    func runChain(_ claim: SyncClaim, _ context: RunContext) async {
        let id = claim.recipe.id
        if let reason = registry.register(id) {
            conclude(claim, .cancelled(.requested(ChainRegistry.words(reason))), step: nil, attempts: claim.attempts)
            return
        }
        defer { registry.remove(id) }

        if claim.isDeletion {
            let (outcome, attempts) = await runStep(.delete, claim, previousAttempts: claim.attempts, context) {
                _ in try await context.requests.sendDelete(claim)
            }
            conclude(claim, outcome, step: .delete, attempts: attempts)
            return
        }

        var imageURL: String? = nil
        if let image = claim.recipe.image, image.sha256 == claim.recipe.sync.remoteImageSHA256 {
            imageURL = claim.recipe.sync.remoteImageURL
        }
        var failures = claim.attempts
        var confirmedImage: ConfirmedImage? = nil
        if let image = claim.imageToSend {
            let (outcome, attempts, url) = await runStep(.image, claim, previousAttempts: failures, context) {
                procedureContext in try await context.requests.sendImage(image, procedureContext)
            }
            guard outcome.isSuccess, let url else {
                conclude(claim, outcome, step: .image, attempts: attempts)
                return
            }
            imageURL = url
            confirmedImage = ConfirmedImage(sha256: image.sha256, url: url)
            failures = attempts - 1
        }
        let confirmedImageURL = imageURL
        let (outcome, attempts) = await runStep(.recipe, claim, previousAttempts: failures, context) {
            _ in try await context.requests.sendRecipe(claim, imageURL: confirmedImageURL)
        }
        conclude(claim, outcome, step: .recipe, attempts: attempts, confirmedImage: confirmedImage)
    }

    /// Runs one step as a procedure on the queue — mutual exclusion on `recipe:<uuid>`, reachability of the server,
    /// the retry policy — and waits for it; returns its outcome, the attempts counted (earlier runs included)
    /// and its output.
    func runStep<Output: Sendable>(
        _ step: SyncEvent.Step, _ claim: SyncClaim, previousAttempts: Int, _ context: RunContext,
        body: @escaping @Sendable (ProcedureContext) async throws -> Output
    ) async -> (ProcedureOutcome, Int, Output?) {
        let host = context.host
        var conditions: [any ProcedureCondition] = [MutualExclusion("recipe:\(claim.recipe.uuid.lowercasedString)")]
        if let host {
            conditions.append(ReachabilityCondition(host: host.host, port: host.port, probe: context.reachability))
        }
        let procedure = Procedure<Output>(
            name: "\(step.rawValue) #\(claim.recipe.id)",
            priority: step == .image ? .normal : .high,
            conditions: conditions,
            retry: retryPolicy,
            tags: ["id": String(claim.recipe.id), "step": step.rawValue],
            previousAttempts: previousAttempts,
            body: body)
        procedure.addObserver(StepObserver(run: self, claim: claim, step: step))
        if let reason = registry.setCurrent(procedure.erased, for: claim.recipe.id) {
            return (.cancelled(.requested(ChainRegistry.words(reason))), previousAttempts, nil)
        }
        context.queue.add(procedure)
        let outcome = await procedure.waitUntilFinished()
        return (outcome, procedure.erased.attempt, procedure.output)
    }

    /// `runStep` for steps whose output is not needed.
    func runStep(
        _ step: SyncEvent.Step, _ claim: SyncClaim, previousAttempts: Int, _ context: RunContext,
        body: @escaping @Sendable (ProcedureContext) async throws -> Void
    ) async -> (ProcedureOutcome, Int) {
        let (outcome, attempts, _) = await runStep(step, claim, previousAttempts: previousAttempts, context, body: body)
        return (outcome, attempts)
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
        confirmedImage: ConfirmedImage? = nil
    ) {
        let ending = ChainConclusion.Ending(
            claim: claim, outcome: outcome, step: step, attempts: attempts, stop: registry.stopReason(claim.recipe.id))
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

    /// Waits up to `--wait-for-network` for the server to be reachable; true when it is.
    func waitForNetwork(_ api: ServerAPI, _ reachability: CachedReachability) async -> Bool {
        guard let target = ReachabilityProbe.hostAndPort(of: api.baseURL) else { return false }
        let deadline = ContinuousClock.now + options.waitForNetwork
        while true {
            if await reachability.isReachable(host: target.host, port: target.port) { return true }
            reachability.invalidate()
            if registry.isStopped || ContinuousClock.now + settings.networkPollInterval > deadline { return false }
            try? await Task.sleep(for: settings.networkPollInterval)
        }
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

/// Turns a step's engine events into sync events: start, throttled progress, retries (persisted at once, so that
/// `kill -9` keeps the count) and waits for the network.
struct StepObserver: ProcedureObserver {
    let run: SyncRun
    let claim: SyncClaim
    let step: SyncEvent.Step

    func procedureDidStart(_ procedure: AnyProcedure) {
        run.emit(run.makeEvent(.start, claim, step: step, total: totalBytes, attempt: procedure.attempt))
    }

    func procedure(_ procedure: AnyProcedure, didProgress completed: Int64, of total: Int64?) {
        // Nothing sent yet says no more than the start event did (and was a fifth of a plain log's lines).
        guard completed > 0 else { return }
        let now = run.settings.now()
        let admitted = run.throttle.withLock { $0.admit(claim.recipe.id, completed: completed, total: total, at: now) }
        guard admitted else { return }
        run.emit(run.makeEvent(.progress, claim, step: step, bytes: completed, total: total, now: now))
    }

    func procedure(_ procedure: AnyProcedure, willRetryAfter delay: Duration, attempt: Int, error: any Error) {
        let now = run.settings.now()
        let seconds = ChainConclusion.seconds(delay)
        let message = ChainConclusion.describeWait(error, cap: run.retryPolicy.maxRetryAfter)
        try? run.store.recordAttempt(
            id: claim.recipe.id, owner: run.settings.owner, attempts: attempt - 1,
            nextAttemptAt: now.addingTimeInterval(seconds), error: message)
        run.emit(run.makeEvent(.retry, claim, step: step, attempt: attempt, delay: seconds, error: message, now: now))
    }

    func procedure(_ procedure: AnyProcedure, willWaitFor delay: Duration, because error: any Error) {
        run.emit(run.makeEvent(.offline, claim, step: step, delay: ChainConclusion.seconds(delay), error: ChainConclusion.describe(error)))
    }

    private var totalBytes: Int64? {
        step == .image ? claim.recipe.image?.byteCount : nil
    }
}
