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
/// exit(summary.exitStatus)
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
    /// Files of chains that succeeded, not deleted yet: media copies go a batch at a time during the run
    /// (`removeFinishedMedia`, from `recordPeriodically`), outbox files at its end, recycled meanwhile by later
    /// chains' writes (`sendRecipe`).
    let removals = Locked<(outbox: [String], media: [String])>(([], []))
    /// Chain ends not recorded yet (see `recordEnds`).
    let pendingEnds = Locked<[PendingEnd]>([])
    /// What the poller last read about this run's leases (see `LeaseView`).
    let leaseView = Locked(LeaseView())
    let outbox: Outbox

    /// Prepares a run; nothing happens until `run()`.
    public init(
        store: RecipeStore, settings: SyncSettings, options: SyncOptions,
        emit: @escaping @Sendable (SyncEvent) -> Void
    ) {
        self.store = store
        self.settings = settings
        self.options = options
        self.emit = emit
        self.outbox = Outbox(directory: store.home.outboxURL, writer: settings.owner)
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
            let summary = try reportWaiting(now: now)
            if !due { return summary }
        }

        // Only work to send needs a server: cron may run before the user configured one.
        guard let api = settings.api else { throw SyncRunError.noServer }
        let reachability = CachedReachability(url: api.baseURL, probe: settings.probe)
        guard await waitForNetwork(api, reachability) else { return try reportOffline(api, since: settings.now()) }

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
        let context = RunContext(
            api: api, client: client, queue: queue, reachability: reachability,
            host: ReachabilityProbe.hostAndPort(of: api.baseURL))

        let poller = Task { await self.poll() }
        let recorder = Task { await self.recordPeriodically() }
        await feed(context)
        poller.cancel()
        recorder.cancel()
        _ = await poller.value
        _ = await recorder.value
        recordEnds()
        try? store.releaseLeases(owner: settings.owner)
        removeFinishedFiles()
        if let error = setupFailure.withLock({ $0 }) { throw error }
        return tally.withLock { $0 }
    }

    /// What every chain of a run shares.
    struct RunContext: Sendable {
        let api: ServerAPI
        let client: HTTPClient
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
                        reportAlreadySynced(ids: ids, batch: batch)
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
                for busy in batch.busy { reportBusy(busy) }
                gate.started(batch.claims.count)
                for claim in batch.claims {
                    group.addTask(executorPreference: context.client.taskExecutor) {
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
                _ in try await self.sendDelete(claim, context)
            }
            conclude(claim, outcome, step: .delete, attempts: attempts)
            return
        }

        var imageURL: String? = nil
        if let image = claim.recipe.image, image.sha256 == claim.recipe.sync.remoteImageSHA256 {
            imageURL = claim.recipe.sync.remoteImageURL
        }
        var failures = claim.attempts
        var confirmedImage: (sha256: String, url: String)? = nil
        if let image = claim.imageToSend {
            let (outcome, attempts, url) = await runStep(.image, claim, previousAttempts: failures, context) {
                procedureContext in try await self.sendImage(image, claim, context, procedureContext)
            }
            guard outcome.isSuccess, let url else {
                conclude(claim, outcome, step: .image, attempts: attempts)
                return
            }
            imageURL = url
            confirmedImage = (image.sha256, url)
            failures = attempts - 1
        }
        let confirmedImageURL = imageURL
        let (outcome, attempts) = await runStep(.recipe, claim, previousAttempts: failures, context) {
            _ in try await self.sendRecipe(claim, imageURL: confirmedImageURL, context)
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

    // MARK: Requests

    /// Sends `request`, turning a failure without an answer into a `StepFailure`.
    func send(_ request: HTTPRequest, _ context: RunContext, what: String,
              progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws -> HTTPResponse {
        do {
            return try await context.client.send(request, progress: progress)
        } catch {
            if error.kind == .halted {
                // Another request's credentials were refused and the client sends nothing more: the same refusal
                // for this chain (the run stops, the recipe stays as it was).
                throw StepFailure(.credentials, "not sent: the server refused the credentials")
            }
            if error.kind == .connectionRefused || error.kind == .connectTimeout { context.reachability.invalidate() }
            let outcome = TransferOutcome.classify(.failure(error), now: settings.now(), redacting: settings.token)
            var failure = StepFailure.from(outcome, what: what) ?? StepFailure(.permanent, "\(what): \(error.message)")
            if let advice = StepFailure.advice(for: error.kind) { failure.message += "; " + advice }
            throw failure
        }
    }

    /// The failure an unexpected answer stands for.
    func failure(_ response: HTTPResponse, what: String) -> StepFailure {
        let outcome = TransferOutcome.classify(.success(response), now: settings.now(), redacting: settings.token)
        return StepFailure.from(outcome, what: what)
            ?? StepFailure(.permanent, "\(what): unexpected answer HTTP \(response.status)")
    }

    /// The image step: `HEAD` by SHA-256 (a crash after an upload never sends the bytes again), then `PUT` from
    /// the media copy; returns the server's URL (recorded with the recipe step's first commit). Only a `HEAD` with the
    /// image's `ETag`, or a `PUT` answer naming its SHA-256 and URL, counts as the server having it (see
    /// `UnexpectedAnswer`).
    func sendImage(
        _ image: ImageReference, _ claim: SyncClaim, _ context: RunContext, _ procedure: ProcedureContext
    ) async throws -> String {
        let what = "image \(image.sha256.prefix(12))"
        let head = try await send(context.api.headImage(sha256: image.sha256), context, what: what)
        if ServerAPI.headConfirmsImage(head, sha256: image.sha256) { return context.api.imageURL(sha256: image.sha256) }
        guard (200..<300).contains(head.status) || head.status == 404 else { throw failure(head, what: what) }
        guard let file = image.localFileName else {
            throw StepFailure(
                .permanent, "\(what): the local copy of the image is gone; attach it again with `image set`")
        }
        let request = context.api.putImage(sha256: image.sha256, path: store.media.path(of: file), format: image.format)
        let response = try await send(request, context, what: what) { progress in
            procedure.reportProgress(completed: progress.sent, total: progress.total)
        }
        guard (200..<300).contains(response.status) else { throw failure(response, what: what) }
        switch ServerAPI.imageAcknowledgement(response, sha256: image.sha256) {
        case .success(let url): return url
        case .failure(let unexpected): throw StepFailure(.transient(retryAfter: nil), "\(what): \(unexpected)")
        }
    }

    /// The JSON step: writes the outbox file of exactly this revision, checks that the lease is still this process's
    /// and the recipe not deleted (`mayUpload`: as the poller last saw it, or the database), then `PUT`s the bytes
    /// written. Only an answer naming this recipe and this revision's version counts as acknowledged.
    func sendRecipe(
        _ claim: SyncClaim, imageURL: String?, _ context: RunContext
    ) async throws {
        let what = "recipe"
        let document = RecipeDocument.encode(claim.recipe, revision: claim.revision, imageURL: imageURL)
        let sending: Bool
        do {
            // The file of a chain that already succeeded is recycled (see `Outbox.write`).
            let spare = removals.withLock { $0.outbox.popLast() }
            _ = try outbox.write(
                document, uuid: claim.recipe.uuid.lowercasedString, revision: claim.revision, recycling: spare)
            sending = try mayUpload(claim)
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "cannot prepare the upload: \(error.localizedDescription)")
        }
        guard sending else {
            throw StepFailure(.leaseLost, "the recipe was deleted or taken over by another process meanwhile")
        }
        let response = try await send(context.api.putRecipe(uuid: claim.recipe.uuid, document: document), context, what: what)
        switch response.status {
        case 200..<300:
            switch ServerAPI.recipeAcknowledgement(response, uuid: claim.recipe.uuid) {
            case .success(let version) where version == claim.revision:
                return
            case .success(let version):
                throw StepFailure(
                    .permanent, "recipe: the server acknowledged version \(version) instead of \(claim.revision)")
            case .failure(let unexpected):
                throw StepFailure(.transient(retryAfter: nil), "\(what): \(unexpected)")
            }
        case 409:
            let version = ServerAPI.version(inAnswer: response.body) ?? claim.revision
            throw StepFailure(
                .conflict(serverVersion: version),
                "recipe: the server has version \(version), newer than local revision \(claim.revision); "
                    + "run `recipes sync \(claim.recipe.id)` to upload the local draft over it")
        default:
            throw failure(response, what: what)
        }
    }

    /// Whether this process still holds the lease of `claim`'s recipe and it was not deleted: from the poller's last
    /// report while that (or the claim) is recent, else from the database.
    func mayUpload(_ claim: SyncClaim) throws -> Bool {
        let claimedAt = (claim.recipe.sync.leaseExpiresAt ?? .distantPast).addingTimeInterval(-settings.leaseDuration)
        let known = leaseView.withLock { $0.mayUpload(claim.recipe.id, claimedAt: claimedAt, now: settings.now()) }
        return try known ?? store.mayUpload(id: claim.recipe.id, owner: settings.owner)
    }

    /// The delete step: `DELETE`; `204`, or a contract error saying it is already gone, counts as done.
    func sendDelete(_ claim: SyncClaim, _ context: RunContext) async throws {
        let response = try await send(context.api.deleteRecipe(uuid: claim.recipe.uuid), context, what: "delete")
        guard (200..<300).contains(response.status) || response.status == 404 || response.status == 410 else {
            throw failure(response, what: "delete")
        }
        if case .failure(let unexpected) = ServerAPI.deletionAcknowledgement(response) {
            throw StepFailure(.transient(retryAfter: nil), "delete: \(unexpected)")
        }
    }

    // MARK: Outcomes

    /// Decides how a chain ended and queues it for `recordEnds`, which records it in the database, lets go of the local
    /// files it no longer needs, reports it, and counts it in the summary.
    func conclude(
        _ claim: SyncClaim, _ outcome: ProcedureOutcome, step: SyncEvent.Step?, attempts: Int,
        confirmedImage: (sha256: String, url: String)? = nil
    ) {
        let now = settings.now()
        var result: ChainResult
        var event: SyncEvent
        switch outcome {
        case .succeeded:
            result = claim.isDeletion ? .deleted : .uploaded(revision: claim.revision)
            event = makeEvent(.done, claim, step: step, now: now)
        case .failed(let error):
            let failure = error as? StepFailure
            let message = failure?.message ?? Self.describe(error)
            event = makeEvent(.failed, claim, step: step, attempt: attempts, error: message, now: now)
            switch failure?.kind {
            case .credentials:
                // Nothing failed: the recipe stays due, and says why it was not uploaded.
                event = makeEvent(.skipped, claim, step: step, error: message, now: now)
                result = .interrupted(error: message)
                tally.withLock { summary in
                    summary.credentialsRefused = true
                    summary.waiting += 1
                }
                registry.stopAll(.credentials)
            case .conflict(let version):
                result = .failed(attempts: attempts, error: message, serverVersion: version)
                tally.withLock { $0.failed += 1 }
            case .leaseLost:
                result = .interrupted(error: nil)
                event = makeEvent(.cancelled, claim, step: step, error: message, now: now)
                tally.withLock { $0.cancelled += 1 }
            case .transient:
                let text = "gave up after \(attempts) attempts: \(message)"
                result = .failed(attempts: attempts, error: text, serverVersion: nil)
                event.error = text
                tally.withLock { $0.failed += 1 }
            case .permanent, nil:
                result = .failed(attempts: attempts, error: message, serverVersion: nil)
                tally.withLock { $0.failed += 1 }
            }
        case .cancelled(let reason):
            let stop = registry.stopReason(claim.recipe.id)
            result = stop == .user ? .cancelledByUser : .interrupted(error: nil)
            if stop == .credentials {
                // Not cancelled by anyone: not sent, and still due once the credentials are right.
                event = makeEvent(.skipped, claim, step: step, error: "not sent: the server refused the credentials", now: now)
                tally.withLock { $0.waiting += 1 }
            } else {
                event = makeEvent(.cancelled, claim, step: step, error: stop.map(ChainRegistry.words) ?? reason.description, now: now)
                tally.withLock { $0.cancelled += 1 }
            }
        case .deferred(let deferral):
            if deferral.retryAfter == nil {
                result = .offline(since: now)
                event = makeEvent(.offline, claim, step: step, error: Self.describe(deferral.error), now: now)
            } else {
                let delay = deferral.retryAfter.map(Self.seconds) ?? 0
                let message = describeWait(deferral.error)
                result = .retryLater(at: now.addingTimeInterval(delay), attempts: deferral.attempts, error: message)
                // A `retry` for the attempt to come, then `skipped`: the chain ends here, the wait is left to a later run.
                emit(makeEvent(
                    .retry, claim, step: step, attempt: deferral.attempts + 1, delay: delay, error: message, now: now))
                event = makeEvent(
                    .skipped, claim, step: step, delay: delay,
                    error: "next attempt in \(Int(delay.rounded())) s, later than --max-wait; left for a later run",
                    now: now)
            }
            tally.withLock { $0.waiting += 1 }
        }
        throttle.withLock { $0.forget(claim.recipe.id) }
        if outcome.isSuccess && !claim.isDeletion {
            // The server has it: the outbox file is free for the next chain's JSON at once (if this process dies
            // before the end is recorded, the next run writes the file again), while the media copy waits for the
            // record (`removeUnneededMedia` keeps a copy the database still refers to).
            removals.withLock { $0.outbox.append(Self.outboxName(claim)) }
        }
        let end = PendingEnd(ending: ChainEnding(claim, result, confirmedImage: confirmedImage), event: event)
        pendingEnds.withLock { $0.append(end) }
        // The usual end waits for the next batch; any other is recorded now, so that a cancelled or failed recipe's
        // lease is released at once (`recipes cancel` waits for that to say the upload stopped). Rare, so its
        // commit on the transport thread costs nothing that shows.
        if !outcome.isSuccess { recordEnds() }
    }

    /// The outbox file of `claim`'s revision.
    static func outboxName(_ claim: SyncClaim) -> String {
        Outbox.fileName(uuid: claim.recipe.uuid.lowercasedString, revision: claim.revision)
    }

    /// A chain's end decided by `conclude`, recorded by the next `recordEnds`.
    struct PendingEnd: Sendable {
        let ending: ChainEnding
        var event: SyncEvent

        /// Whether the server has what the chain sent.
        var succeeded: Bool {
            switch ending.result {
            case .uploaded, .deleted: true
            case .retryLater, .failed, .cancelledByUser, .interrupted, .offline: false
            }
        }
    }

    /// Records the chain ends decided since the last call in one transaction, then queues the media copies of the
    /// chains that succeeded for deletion, counts them in the summary and reports them. Called by
    /// `recordPeriodically` every poll interval, by `conclude` for an end other than the usual one, and once at the
    /// end of the run; so the usual end is recorded within about a poll interval, off the transfer loop's thread,
    /// which goes on driving the transfers meanwhile: recorded there one transaction per chain, the ends were a
    /// seventh of that thread's work in a 1,000-recipe sync.
    func recordEnds() {
        let ends = pendingEnds.withLock { ends in
            defer { ends = [] }
            return ends
        }
        guard !ends.isEmpty else { return }
        let endings = ends.map(\.ending)
        let finished: [Result<FinishedChain, StoreError>]
        do {
            finished = try store.finishChains(endings, owner: settings.owner).map { .success($0) }
        } catch {
            // One transaction for the batch: when it fails, each end alone, so that one that cannot be recorded
            // fails only itself.
            finished = endings.map { ending in
                Result { () throws(StoreError) in try store.finishChains([ending], owner: settings.owner)[0] }
            }
        }
        for (end, finished) in zip(ends, finished) {
            var event = end.event
            let claim = end.ending.claim
            switch finished {
            case .success(let chain):
                guard end.succeeded else { break }
                removals.withLock { $0.media += chain.unneededMedia }
                if chain.editedMeanwhile {
                    // Revision fencing: the server has the claimed revision; the edit made meanwhile is still due.
                    tally.withLock { $0.waiting += 1 }
                    event.error = "revision \(claim.revision) is on the server; an edit made meanwhile is due next"
                } else {
                    tally.withLock { $0.done += 1 }
                }
            case .failure(let error):
                if end.succeeded {
                    // Still due: its outbox file is the next run's again, not this run's to recycle or delete.
                    let name = Self.outboxName(claim)
                    removals.withLock { $0.outbox.removeAll { $0 == name } }
                    tally.withLock { $0.failed += 1 }
                }
                event = makeEvent(
                    .failed, claim, step: event.step,
                    error: "cannot record the result: \(error.localizedDescription)", now: event.time)
            }
            emit(event)
        }
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

    // MARK: Reports without a chain

    /// Reports a recipe busy in another process (it counts as still waiting).
    func reportBusy(_ busy: BusyRecipe) {
        let holder = busy.processID.map { "uploading in pid \($0)" } ?? "uploading in another process"
        emit(SyncEvent(.skipped, id: busy.id, uuid: busy.uuid, title: busy.title, error: holder, time: settings.now()))
        tally.withLock { $0.waiting += 1 }
    }

    /// Reports the explicitly requested recipes the server already has: done, with nothing sent.
    func reportAlreadySynced(ids: [Int64], batch: ClaimBatch) {
        let handled = Set(batch.claims.map(\.recipe.id)).union(batch.busy.map(\.id))
        let rest = Array(Set(ids).subtracting(handled)).sorted()
        guard !rest.isEmpty, let recipes = try? store.recipes(ids: rest) else { return }
        for recipe in recipes {
            emit(SyncEvent(
                .done, id: recipe.id, uuid: recipe.uuid, title: recipe.title, revision: recipe.sync.revision,
                time: settings.now()))
        }
        tally.withLock { $0.done += recipes.count }
    }

    /// Reports the recipes waiting for a later retry (not due now); they count as still waiting.
    func reportWaiting(now: Date) throws -> SyncSummary {
        let waiting = try store.waitingRecipes(at: now)
        for recipe in waiting {
            let sync = recipe.sync.droppingLease(unless: settings.isOwnerAlive)
            let words = BlockedReason.describe(sync, at: now) ?? "waiting"
            emit(SyncEvent(
                .skipped, id: recipe.id, uuid: recipe.uuid, title: recipe.title, revision: recipe.sync.revision,
                delay: recipe.sync.nextAttemptAt.map { max(0, $0.timeIntervalSince(now)) }, error: words, time: now))
        }
        return tally.withLock { summary in
            summary.waiting += waiting.count
            return summary
        }
    }

    /// Records and reports that the server is unreachable: nothing sent, no attempt counted.
    func reportOffline(_ api: ServerAPI, since: Date) throws -> SyncSummary {
        let recipes = try store.dueRecipes(at: since, ids: options.ids).filter { recipe in
            recipe.sync.state != .synced || recipe.sync.revision > recipe.sync.syncedRevision
        }
        try store.markOffline(ids: recipes.map(\.id), since: since)
        let target = ReachabilityProbe.hostAndPort(of: api.baseURL).map { "\($0.host):\($0.port)" } ?? api.baseURL
        for recipe in recipes {
            emit(SyncEvent(
                .offline, id: recipe.id, uuid: recipe.uuid, title: recipe.title, revision: recipe.sync.revision,
                error: "cannot reach \(target)", time: since))
        }
        return tally.withLock { summary in
            summary.waiting += recipes.count
            return summary
        }
    }

    // MARK: Housekeeping

    /// Deletes the outbox files of the chains that succeeded in this run, and the media copies not deleted yet
    /// (`removeFinishedMedia` lets most of them go during the run), once it ends.
    ///
    /// Outbox files are not deleted as chains finish but recycled by later chains' writes
    /// (`Outbox.write(recycling:)`): ext4 searches past recently freed inodes when it allocates one, and creating an
    /// outbox file per chain after deleting the previous ones cost a tenth of a 1,000-recipe sync's CPU. So a long
    /// run creates only about as many outbox files as it runs chains at once. (A sync creates no media copies, so
    /// deleting those early slows none of its file creations.) Whatever a killed run leaves behind is
    /// unreferenced and collected at the start of the next one.
    func removeFinishedFiles() {
        let finished = removals.withLock { removals in
            defer { removals.outbox = [] }
            return removals.outbox
        }
        for name in finished { outbox.remove(name) }
        removeFinishedMedia()
    }

    /// Deletes the media copies the chains done so far no longer need (checked against the database under the
    /// media lock, as at the end); their outbox files stay for later chains to recycle.
    func removeFinishedMedia() {
        let media = removals.withLock { removals in
            defer { removals.media = [] }
            return removals.media
        }
        try? store.removeUnneededMedia(media)
    }

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

    /// Every poll interval: aborts the chains whose cancellation another process requested or whose lease was taken
    /// over, and notes the recipes deleted meanwhile (their JSON must not go out, see `LeaseView`); every third of the
    /// lease: renews this process's leases. Only reads and that renewal: the ends and media copies are
    /// `recordPeriodically`'s, so that a commit or the media lock waited for never delays a cancellation.
    func poll() async {
        var lastRenewal = ContinuousClock.now
        let renewEvery = Duration.seconds(settings.leaseDuration / 3)
        while !Task.isCancelled {
            try? await Task.sleep(for: settings.pollInterval)
            if Task.isCancelled { return }
            // The chains running before the read: each registered after its claim committed, so a lease missing
            // from the report was lost, not not yet taken.
            let watched = registry.ids
            let polledAt = settings.now()
            if let report = try? store.leaseReport(owner: settings.owner) {
                for id in report.cancelRequested { registry.stop(id, .user) }
                for id in watched where !report.held.contains(id) { registry.stop(id, .leaseLost) }
                leaseView.withLock { $0.update(report, at: polledAt) }
            }
            if ContinuousClock.now - lastRenewal >= renewEvery {
                lastRenewal = ContinuousClock.now
                let until = settings.now().addingTimeInterval(settings.leaseDuration)
                try? store.renewLeases(owner: settings.owner, until: until)
            }
        }
    }

    /// Every poll interval: records the chains ended since the last time, in one transaction, and deletes the media
    /// copies they no longer need — on the pool, a batch at a time, while the transfers go on. (Media copies deleted
    /// at the end instead were most of the time between a 1,000-recipe sync's last answer and its exit.)
    func recordPeriodically() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: settings.pollInterval)
            if Task.isCancelled { return }
            recordEnds()
            removeFinishedMedia()
        }
    }

    // MARK: Helpers

    /// `error` in words, saying so when the server asked for a longer wait than the retry policy grants (one
    /// `Retry-After` must not park a recipe for years: see `RetryPolicy.maxRetryAfter`).
    func describeWait(_ error: any Error) -> String {
        let message = Self.describe(error)
        guard let failure = error as? StepFailure, case .transient(let asked?) = failure.kind,
            asked > retryPolicy.maxRetryAfter
        else { return message }
        let cap = Int(Self.seconds(retryPolicy.maxRetryAfter) / 3600)
        return message + "; the server asked to wait \(Int64(Self.seconds(asked))) s, recipes waits \(cap) h at most"
    }

    static func describe(_ error: any Error) -> String {
        if let failure = error as? StepFailure { return failure.message }
        if let engine = error as? EngineError { return engine.description }
        return (error as? any LocalizedError)?.errorDescription ?? "\(error)"
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
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
        let seconds = SyncRun.seconds(delay)
        let message = run.describeWait(error)
        try? run.store.recordAttempt(
            id: claim.recipe.id, owner: run.settings.owner, attempts: attempt - 1,
            nextAttemptAt: now.addingTimeInterval(seconds), error: message)
        run.emit(run.makeEvent(.retry, claim, step: step, attempt: attempt, delay: seconds, error: message, now: now))
    }

    func procedure(_ procedure: AnyProcedure, willWaitFor delay: Duration, because error: any Error) {
        run.emit(run.makeEvent(.offline, claim, step: step, delay: SyncRun.seconds(delay), error: SyncRun.describe(error)))
    }

    private var totalBytes: Int64? {
        step == .image ? claim.recipe.image?.byteCount : nil
    }
}
