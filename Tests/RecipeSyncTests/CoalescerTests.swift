import Foundation
import Locking
import OperationEngine
import OperationEngineTestSupport
import Testing
@testable import RecipeSync

/// The data loader's bookkeeping, from tables: who goes in which batch, one answer per waiter, a failed batch fails
/// each waiter the same way, and a cancelled waiter never takes the others' answers with it.
@Suite("Coalescer: batches of the requests that become ready together, one answer per waiter")
struct CoalescerTests {
    struct Failure: Error, Equatable { let words: String }

    @Test("arrivals: the first opens the window, the next wait, a full batch goes at once and the window stays open")
    func arrivals() {
        var coalescer = Coalescer<String>(maxBatch: 3)
        let table: [(id: UInt64, key: String, expected: Coalescer<String>.Arrival)] = [
            (1, "a", .openWindow), (2, "b", .wait), (3, "c", .sendFull), (4, "d", .wait),
        ]
        for row in table {
            let arrival = coalescer.arrive(row.id, row.key)
            if row.expected == .sendFull {
                #expect(arrival == .sendFull, "arrival \(row.id)")
                #expect(coalescer.takeFull()?.waiters.map(\.key) == ["a", "b", "c"])
            } else {
                #expect(arrival == row.expected, "arrival \(row.id)")
            }
        }
        #expect(coalescer.takeFull() == nil, "one waiting is no full batch")
        let ended = coalescer.windowEnded()
        #expect(ended.map { $0.waiters.map(\.key) } == [["d"]])
        #expect(coalescer.arrive(5, "e") == .openWindow, "after a window ended, the next arrival opens another")
    }

    @Test("a window's end sends everything waiting, in batches of at most maxBatch, in arrival order")
    func windowSplitsIntoBatches() {
        var coalescer = Coalescer<Int>(maxBatch: 100)
        for id in 1...250 { _ = coalescer.arrive(UInt64(id), id) }
        // 250 arrivals with maxBatch 100 would have said sendFull twice; here nobody took them, so the window does.
        let batches = coalescer.windowEnded()
        #expect(batches.map(\.waiters.count) == [100, 100, 50])
        #expect(batches.flatMap { $0.waiters.map(\.key) } == Array(1...250))
        #expect(Set(batches.map(\.batch)).count == 3, "each batch has its own id")
    }

    @Test("answers: each waiter gets its own, in order; a failure or an answer of the wrong length fails each the same")
    func answers() throws {
        let mismatch = Failure(words: "mismatch")
        let cases: [(result: Result<[String], Failure>, expected: [Result<String, Failure>])] = [
            (.success(["A", "B", "C"]), [.success("A"), .success("B"), .success("C")]),
            (.failure(Failure(words: "reset")), Array(repeating: .failure(Failure(words: "reset")), count: 3)),
            (.success(["A", "B"]), Array(repeating: .failure(mismatch), count: 3)),
            (.success(["A", "B", "C", "D"]), Array(repeating: .failure(mismatch), count: 3)),
        ]
        for (index, row) in cases.enumerated() {
            var coalescer = Coalescer<String>(maxBatch: 10)
            for (id, key) in zip(UInt64(1)..., ["a", "b", "c"]) { _ = coalescer.arrive(id, key) }
            let batch = try #require(coalescer.windowEnded().first, "case \(index)")
            let answers = coalescer.answered(batch.batch, sent: batch.waiters, result: row.result, mismatch: mismatch)
            #expect(answers.map(\.id) == [1, 2, 3], "case \(index)")
            #expect(answers.map(\.result) == row.expected, "case \(index)")
            #expect(coalescer.inFlight.isEmpty, "case \(index): an answered batch is no longer in flight")
        }
    }

    @Test("maxInFlight: a window that ends with that many batches in flight is held, and goes with the next answer")
    func heldWhileInFlight() {
        var coalescer = Coalescer<String>(maxBatch: 3, maxInFlight: 1)
        var sent: [(batch: UInt64, waiters: [(id: UInt64, key: String)])] = []
        func keys(_ batches: [(batch: UInt64, waiters: [(id: UInt64, key: String)])]) -> [[String]] {
            batches.map { $0.waiters.map(\.key) }
        }
        var nextID: UInt64 = 1
        func arrive(_ key: String) -> Coalescer<String>.Arrival {
            defer { nextID += 1 }
            return coalescer.arrive(nextID, key)
        }
        func answerOldest() -> [[String]] {
            guard !sent.isEmpty else {
                Issue.record("no batch in flight to answer")
                return []
            }
            let oldest = sent.removeFirst()
            _ = coalescer.answered(oldest.batch, sent: oldest.waiters, result: .success(oldest.waiters.map(\.key)),
                                   mismatch: Failure(words: "x"))
            let released = coalescer.released()
            sent += released
            return keys(released)
        }
        #expect(arrive("a") == .openWindow)
        let first = coalescer.windowEnded()
        sent += first
        #expect(keys(first) == [["a"]], "nothing in flight: the window's end sends")
        #expect(arrive("b") == .openWindow)
        #expect(coalescer.windowEnded().isEmpty, "one batch in flight, maxInFlight 1: the window's end holds b")
        #expect(coalescer.held)
        #expect(arrive("c") == .wait, "while held, an arrival waits: no window of its own")
        #expect(arrive("d") == .sendFull, "a full batch goes regardless of what is in flight")
        let full = coalescer.takeFull()
        #expect(full.map { $0.waiters.map(\.key) } == ["b", "c", "d"])
        sent += full.map { [$0] } ?? []
        #expect(arrive("e") == .wait)
        #expect(answerOldest().isEmpty, "a answered, but b–d still fill the one slot in flight: e stays held")
        #expect(answerOldest() == [["e"]], "b–d answered: the held e goes")
        #expect(!coalescer.held)
        #expect(answerOldest().isEmpty, "nothing held: an answer releases nothing")
        #expect(arrive("f") == .openWindow, "nothing in flight or held: the next arrival opens a window")
    }

    @Test("maxInFlight: a held window whose waiters were all cancelled releases nothing and holds no more")
    func heldThenCancelled() throws {
        var coalescer = Coalescer<String>(maxBatch: 10, maxInFlight: 1)
        _ = coalescer.arrive(1, "a")
        let first = try #require(coalescer.windowEnded().first)
        _ = coalescer.arrive(2, "b")
        #expect(coalescer.windowEnded().isEmpty && coalescer.held)
        #expect(coalescer.cancel(2) == .removedBeforeSending)
        _ = coalescer.answered(first.batch, sent: first.waiters, result: .success(["A"]), mismatch: Failure(words: "x"))
        #expect(coalescer.released().isEmpty)
        #expect(!coalescer.held && coalescer.inFlight.isEmpty)
        #expect(coalescer.arrive(3, "c") == .openWindow)
    }

    @Test("cancellation: before sending it leaves the batch; after, only that waiter's answer is dropped")
    func cancellation() throws {
        var coalescer = Coalescer<String>(maxBatch: 10)
        for (id, key) in zip(UInt64(1)..., ["a", "b", "c"]) { _ = coalescer.arrive(id, key) }
        #expect(coalescer.cancel(2) == .removedBeforeSending)
        let batch = try #require(coalescer.windowEnded().first)
        #expect(batch.waiters.map(\.key) == ["a", "c"], "a waiter cancelled before the window ended is not sent")
        #expect(coalescer.cancel(1) == .droppedFromBatch(batch.batch, batchAbandoned: false))
        let answers = coalescer.answered(
            batch.batch, sent: batch.waiters, result: .success(["A", "C"]), mismatch: Failure(words: "x"))
        #expect(answers.map(\.id) == [3] && answers.map(\.result) == [.success("C")],
                "the waiter left gets its own answer; the cancelled one none")
        #expect(coalescer.cancel(3) == .unknown, "an answered waiter is no longer waiting")

        var alone = Coalescer<String>(maxBatch: 10)
        _ = alone.arrive(7, "z")
        let only = try #require(alone.windowEnded().first)
        #expect(alone.cancel(7) == .droppedFromBatch(only.batch, batchAbandoned: true), "nobody waits: abandon it")
    }
}

/// The loader around the coalescer, with real tasks on a manual clock: loads that arrive before the window ends go
/// in one send, each gets its own answer, a failed send fails each the same way, and cancelling one load while its
/// batch is in flight leaves the others' answers. The window ends only when the test advances the clock, after every
/// load has arrived, so no result depends on how fast the machine is.
@Suite("BatchLoader: concurrent loads in one send, each with its own answer")
struct BatchLoaderTests {
    final class Sends: Sendable {
        let batches = Locked<[[Int]]>([])
    }

    /// Waits (without any deadline of its own) until `count` loads wait in `loader` and its window sleeps on `clock`.
    static func arrived(_ count: Int, in loader: BatchLoader<Int, String>, clock: ManualClock) async {
        await clock.waitForSleepers(1)
        while loader.waitingCount < count { await Task.yield() }
    }

    @Test("loads that arrive within the window go in one send when it ends; each gets the answer for its own key")
    func oneSendOwnAnswers() async throws {
        let clock = ManualClock()
        let loader = BatchLoader<Int, String>(maxBatch: 100, window: .milliseconds(200), clock: clock)
        let sends = Sends()
        let loads = Task {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for key in 1...5 {
                    group.addTask {
                        (key, try await loader.load(key) { keys throws(StepFailure) in
                            sends.batches.withLock { $0.append(keys) }
                            return keys.map { "answer \($0)" }
                        })
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
        }
        await Self.arrived(5, in: loader, clock: clock)
        #expect(sends.batches.withLock { $0.isEmpty }, "nothing is sent while the window is open")
        clock.advance(by: .milliseconds(200))
        let answers = try await loads.value
        #expect(sends.batches.withLock { $0.count } == 1, "five loads within the window: one send")
        #expect(sends.batches.withLock { $0.first?.sorted() } == [1, 2, 3, 4, 5])
        #expect(answers == Dictionary(uniqueKeysWithValues: (1...5).map { ($0, "answer \($0)") }))
    }

    @Test("a failed send fails every load of it with the same failure")
    func failedSend() async {
        let clock = ManualClock()
        let loader = BatchLoader<Int, String>(maxBatch: 100, window: .milliseconds(200), clock: clock)
        let failure = StepFailure(.transient(retryAfter: nil), "recipes: the connection was reset")
        let sends = Sends()
        let loads = Task {
            await withTaskGroup(of: Result<String, StepFailure>.self) { group in
                for key in 1...3 {
                    group.addTask {
                        do {
                            return .success(try await loader.load(key) { keys throws(StepFailure) in
                                sends.batches.withLock { $0.append(keys) }
                                throw failure
                            })
                        } catch {
                            return .failure(error as? StepFailure ?? StepFailure(.permanent, "other"))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        await Self.arrived(3, in: loader, clock: clock)
        clock.advance(by: .milliseconds(200))
        #expect(await loads.value == Array(repeating: .failure(failure), count: 3))
        #expect(sends.batches.withLock { $0.count } == 1, "the three loads failed together, from one send")
    }

    @Test("cancelling one load while its batch is in flight cancels only that load")
    func cancelOne() async throws {
        let clock = ManualClock()
        let loader = BatchLoader<Int, String>(maxBatch: 100, window: .milliseconds(100), clock: clock)
        let release = AsyncStream<Void>.makeStream()
        let inFlight = AsyncStream<[Int]>.makeStream()
        let send: BatchLoader<Int, String>.Send = { keys throws(StepFailure) in
            inFlight.continuation.yield(keys)
            for await _ in release.stream { break }
            return keys.map { "answer \($0)" }
        }
        let cancelled = Task { try await loader.load(1, send: send) }
        let kept = Task { try await loader.load(2, send: send) }
        await Self.arrived(2, in: loader, clock: clock)
        clock.advance(by: .milliseconds(100))
        var sent: [Int]?
        for await keys in inFlight.stream {
            sent = keys
            break
        }
        #expect(sent?.sorted() == [1, 2], "both loads are in the batch on the wire when one is cancelled")
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        release.continuation.yield()
        #expect(try await kept.value == "answer 2", "the other load still gets its own answer")
    }
}
