import Locking
import Testing
@testable import OperationEngine

@Suite("Cancellation reaches running work")
struct CancellationTests {
    @Test("cancelling an executing procedure cancels its task: a blocked 60 s wait ends within seconds, not a minute")
    func taskCancellation() async throws {
        let queue = ProcedureQueue()
        let started = Gate()
        let procedure = Procedure<Void>(name: "transfer") { _ in
            started.open()
            try await ContinuousClock().sleep(for: .seconds(60))
        }
        queue.add(procedure)
        try await started.wait()
        let clock = ContinuousClock()
        let begin = clock.now
        procedure.cancel(reason: .requested("recipes cancel"))
        let outcome = await procedure.waitUntilFinished()
        // Half of the 60 s it would take without cancellation reaching the wait: under ThreadSanitizer, or beside other
        // processes on two busy cores, scheduling alone can take many seconds.
        #expect(clock.now - begin < .seconds(30))
        #expect(outcome.isCancelled)
    }

    @Test("a registered cancel handler runs at once and unblocks work that ignores task cancellation")
    func cancelHandler() async throws {
        final class Transfer: Sendable {
            let aborted = Locked<CheckedContinuation<Void, Never>?>(nil)
            func run() async {
                await withCheckedContinuation { continuation in aborted.withLock { $0 = continuation } }
            }
            func abort() {
                aborted.withLock { $0 }?.resume()
            }
        }
        let transfer = Transfer()
        let handlerRuns = Locked(0)
        let started = Gate()
        let queue = ProcedureQueue()
        let procedure = Procedure<Void>(name: "curl") { context in
            context.onCancel {
                handlerRuns.withLock { $0 += 1 }
                transfer.abort()
            }
            async let work: Void = transfer.run()
            while transfer.aborted.withLock({ $0 == nil }) { await Task.yield() }
            started.open()
            await work
            throw CancellationError()
        }
        queue.add(procedure)
        try await started.wait()
        procedure.cancel()
        let outcome = await procedure.waitUntilFinished()
        #expect(outcome.isCancelled)
        #expect(handlerRuns.withLock { $0 } == 1)
    }

    @Test("a handler registered after cancellation runs immediately")
    func lateHandler() async {
        let procedure = Procedure<Void>(name: "late") { _ in }
        procedure.cancel()
        let ran = Locked(false)
        procedure.erased.addCancelHandler { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }

    @Test("cancelling while conditions are evaluated finishes as cancelled without executing")
    func cancelDuringEvaluation() async throws {
        struct Blocking: ProcedureCondition {
            let entered: Gate
            func evaluate(_ context: ConditionContext) async throws {
                entered.open()
                try await Gate().wait()
            }
        }
        let entered = Gate()
        let ran = Recorder<Bool>()
        let queue = ProcedureQueue()
        let procedure = Procedure<Void>(name: "p", conditions: [Blocking(entered: entered)]) { _ in ran.append(true) }
        queue.add(procedure)
        try await entered.wait()
        procedure.cancel()
        #expect(await procedure.waitUntilFinished().isCancelled)
        #expect(ran.count == 0)
    }
}
