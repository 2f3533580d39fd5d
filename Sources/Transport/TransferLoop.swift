import Foundation
import Locking
import Synchronization

/// The one thread that drives a client's libcurl multi handle: it starts queued transfers (at most
/// `maxConcurrent` at once), runs them, hands results back and aborts cancelled ones at once, sleeping in
/// `curl_multi_poll` and woken by `curl_multi_wakeup` when a request, a cancellation or a job arrives while it sleeps.
///
/// It is also a `TaskExecutor`: tasks that prefer it run on this thread between two rounds of libcurl, so a request
/// sent from such a task and the answer that resumes it need no thread hop, and no wake-up when the loop is awake
/// anyway. After `shutdown`, jobs go to the global concurrent executor.
final class TransferLoop: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: other threads touch only `inbox` (a lock) and `multi.wakeup()` (documented
    // thread-safe, called under the inbox lock so it never races the handle's cleanup); every other stored
    // property below is read and written by the loop's own thread only.

    private enum Command {
        case add(CurlTransfer)
        case cancel(UInt64)
        /// The limit of transfers at once changed: start what it now allows.
        case retune
    }

    private struct Inbox {
        var commands: [Command] = []
        /// Jobs of tasks that prefer this executor, run in order by the loop's thread.
        var jobs: [UnownedJob] = []
        /// The loop is in (or about to enter) `curl_multi_poll`: whoever adds work must wake it.
        var sleeping = false
        var closing = false
        var closed = false
    }

    private let multi: CurlMulti
    private let inbox = Locked(Inbox())
    /// The most transfers at once it may be told to run (`setConcurrency`).
    private let maxConcurrent: Int
    /// The transfers run at once now: at most `maxConcurrent`, set from any thread, read by the loop's.
    private let concurrency: Atomic<Int>
    private let haltingStatuses: Set<Int>
    /// Set once an answer with one of `haltingStatuses` arrived: nothing more is started.
    private var halted = false

    // Loop-thread state.
    private var active: [UInt64: CurlTransfer] = [:]
    private var byHandle: [UnsafeMutableRawPointer: UInt64] = [:]
    private var waiting = WaitingLine<CurlTransfer>()

    /// Creates the loop and starts its thread.
    init(maxConcurrent: Int, maxConnections: Int, haltingStatuses: Set<Int> = []) throws(TransportError) {
        multi = try CurlMulti(maxConnections: maxConnections)
        self.maxConcurrent = max(1, maxConcurrent)
        concurrency = Atomic(max(1, maxConcurrent))
        self.haltingStatuses = haltingStatuses
        let thread = Thread { [self] in run() }
        thread.name = "recipes-transport"
        thread.start()
    }

    /// Queues `transfer`; its continuation receives the result. After `shutdown` it fails at once as cancelled.
    func submit(_ transfer: CurlTransfer) {
        let accepted = post(.add(transfer))
        if !accepted { transfer.finish(.failure(.cancelled("the HTTP client was shut down"))) }
    }

    /// Aborts `transfer` wherever it is (queued or running); harmless if it already finished.
    ///
    /// The flag is set first, so a cancellation that overtakes the transfer's own `submit` is seen when the
    /// transfer arrives; the loop keeps no record of cancelled ids (which would grow with every cancellation).
    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelRequested.store(true, ordering: .sequentiallyConsistent)
        _ = post(.cancel(transfer.id))
    }

    /// Runs at most `count` transfers at once from now on (within 1 and the `maxConcurrent` it was made with); those
    /// already running go on.
    func setConcurrency(_ count: Int) {
        concurrency.store(min(max(1, count), maxConcurrent), ordering: .relaxed)
        _ = post(.retune)
    }

    /// Stops the loop: every outstanding transfer fails as cancelled, then the thread ends.
    func shutdown() {
        inbox.withLock { inbox in
            guard !inbox.closed, !inbox.closing else { return }
            inbox.closing = true
            TeardownsAtExit.begin()   // ended by the loop's thread once it freed its handles
            multi.wakeup()
        }
    }

    private func post(_ command: Command) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.closing && !inbox.closed else { return false }
            inbox.commands.append(command)
            Self.wakeIfSleeping(&inbox, multi)
            return true
        }
    }

    /// Runs `job` on the loop's thread, after the work already queued; on the global executor once the loop closed.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let accepted = inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            inbox.jobs.append(job)
            Self.wakeIfSleeping(&inbox, multi)
            return true
        }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// One wake-up per sleep: `curl_multi_wakeup` writes to a socket, which the loop only needs while it polls.
    private static func wakeIfSleeping(_ inbox: inout Inbox, _ multi: CurlMulti) {
        guard inbox.sleeping else { return }
        inbox.sleeping = false
        multi.wakeup()
    }

    private func run() {
        let executor = asUnownedTaskExecutor()
        while true {
            // Jobs first: what they send is then started in this same round.
            let jobs = inbox.withLock { inbox in
                inbox.sleeping = false
                defer { inbox.jobs.removeAll(keepingCapacity: true) }
                return inbox.jobs
            }
            for job in jobs { job.runSynchronously(on: executor) }
            let (commands, closing) = inbox.withLock { inbox in
                let taken = inbox.commands
                inbox.commands.removeAll(keepingCapacity: true)
                return (taken, inbox.closing)
            }
            for command in commands { handle(command) }
            if closing { break }
            // A finished transfer's slot goes to the next waiting one at once, before the jobs its answer queued
            // run: the server gets the next request while this thread works on the answer.
            var finishedAny: Bool
            repeat {
                startWaiting()
                multi.perform()
                finishedAny = false
                while let (handle, code) = multi.nextDone() {
                    guard let id = byHandle.removeValue(forKey: handle), let transfer = active.removeValue(forKey: id) else { continue }
                    multi.remove(transfer.easy)
                    let result = transfer.result(for: code)
                    // Only the token's own server refuses it: a host elsewhere asking for credentials stops nothing.
                    let halts = if case .success(let response) = result, !transfer.goesElsewhere {
                        haltingStatuses.contains(response.status)
                    } else {
                        false
                    }
                    transfer.finish(result)
                    if halts { halt() }   // after: the refused request's caller hears of it first
                    finishedAny = true
                }
            } while finishedAny && !waiting.isEmpty
            let nextDeadline = endOverdueAnswers()
            // Sleep only with nothing queued (answers just delivered queue their tasks' jobs here); from here on,
            // whoever queues something wakes the poll.
            let idle = inbox.withLock { inbox in
                guard inbox.commands.isEmpty && inbox.jobs.isEmpty else { return false }
                inbox.sleeping = true
                return true
            }
            if idle { multi.poll(milliseconds: nextDeadline.map { Self.millisecondsUntil($0) } ?? 1000) }
        }
        close()
        // Its connections closed now, on this thread, before a process exiting meanwhile tears OpenSSL down.
        multi.close()
        TeardownsAtExit.end()
    }

    /// Ends the transfers whose answer is overdue (see `HTTPRequest.answerDeadline`) as timed out; returns the
    /// earliest deadline still ahead, so that the loop wakes for it.
    private func endOverdueAnswers() -> UInt64? {
        var earliest: UInt64?
        var now: UInt64?
        for transfer in active.values {
            guard let due = transfer.answerDueBy else { continue }
            let current = now ?? CurlTransfer.monotonicNanoseconds()
            now = current
            if due > current {
                earliest = min(earliest ?? due, due)
                continue
            }
            active[transfer.id] = nil
            byHandle[transfer.easy.handle] = nil
            multi.remove(transfer.easy)  // aborts the transfer and closes its connection
            transfer.finish(.failure(transfer.answerDeadlineError()))
        }
        return earliest
    }

    /// The poll timeout until `deadline` on the monotonic clock: at least 1 ms, at most a second.
    private static func millisecondsUntil(_ deadline: UInt64) -> Int32 {
        let now = CurlTransfer.monotonicNanoseconds()
        guard deadline > now else { return 1 }
        return Int32(min(1000, max(1, (deadline - now + 999_999) / 1_000_000)))
    }

    /// Stops starting transfers: those waiting fail at once, and so will any added later.
    private func halt() {
        halted = true
        for transfer in waiting.removeAll() { transfer.finish(.failure(Self.haltedError)) }
    }

    private static let haltedError = TransportError(
        kind: .halted, message: "not sent: an earlier answer stopped this client (credentials refused)")

    private func handle(_ command: Command) {
        switch command {
        case .add(let transfer):
            if halted {
                transfer.finish(.failure(Self.haltedError))
            } else if transfer.cancelRequested.load(ordering: .sequentiallyConsistent) {
                transfer.finish(.failure(.cancelled()))
            } else {
                waiting.append(transfer, ahead: transfer.startsAhead)
            }
        case .cancel(let id):
            if let transfer = active.removeValue(forKey: id) {
                byHandle[transfer.easy.handle] = nil
                multi.remove(transfer.easy) // aborts the transfer and closes its connection
                transfer.finish(.failure(.cancelled()))
            } else if let transfer = waiting.remove(where: { $0.id == id }) {
                transfer.finish(.failure(.cancelled()))
            }
            // Otherwise the transfer already finished, or its add is still on the way and will see `cancelRequested`.
        case .retune:
            break  // the round's `startWaiting` reads the new limit
        }
    }

    private func startWaiting() {
        let limit = concurrency.load(ordering: .relaxed)
        while active.count < limit, let transfer = waiting.popFirst() {
            guard multi.add(transfer.easy) else {
                transfer.finish(.failure(TransportError(kind: .setupFailed, message: "libcurl could not start the transfer")))
                continue
            }
            active[transfer.id] = transfer
            byHandle[transfer.easy.handle] = transfer.id
        }
    }

    private func close() {
        let jobs = inbox.withLock { inbox in
            inbox.closed = true
            for case .add(let transfer) in inbox.commands { waiting.append(transfer, ahead: transfer.startsAhead) }
            inbox.commands.removeAll()
            defer { inbox.jobs.removeAll() }
            return inbox.jobs
        }
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        for transfer in active.values {
            multi.remove(transfer.easy)
            transfer.finish(.failure(.cancelled("the HTTP client was shut down")))
        }
        for transfer in waiting.removeAll() { transfer.finish(.failure(.cancelled("the HTTP client was shut down"))) }
        active.removeAll()
        byHandle.removeAll()
    }
}
