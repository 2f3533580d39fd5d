import Foundation
import Synchronization
import Testing
@testable import OperationEngine
import OperationEngineTestSupport

/// A task executor with one thread of its own, which records the jobs it ran.
private final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is guarded by `condition`; `thread` is written once by the executor's own thread
    // before it takes its first job and read through the atomic `threadNumber`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    let threadNumber = Atomic<UInt>(0)
    let ran = Atomic<Int>(0)

    init() {
        let thread = Thread { [self] in
            threadNumber.store(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))), ordering: .releasing)
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let batch = jobs
                jobs.removeAll()
                condition.unlock()
                for job in batch {
                    ran.add(1, ordering: .relaxed)
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrent: Bool {
        threadNumber.load(ordering: .acquiring) == UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
    }
}

@Suite("A queue's task executor preference")
struct TaskExecutorPreferenceTests {
    @Test("every body, across its suspensions or without any, runs on the queue's task executor")
    func bodiesRunOnExecutor() async {
        let executor = OneThreadExecutor()
        let queue = ProcedureQueue(
            maxConcurrentProcedures: 3, clock: ManualClock(), random: FixedRandomSource(0), taskExecutor: executor)
        let elsewhere = Atomic<Int>(0)
        let bodies = Atomic<Int>(0)
        @Sendable func check() {
            bodies.add(1, ordering: .relaxed)
            if !executor.isCurrent { elsewhere.add(1, ordering: .relaxed) }
        }
        let procedures: [AnyProcedure] = (0..<60).map { index in
            let key = MutualExclusion("k\(index % 4)")
            if index % 2 == 0 {
                return Procedure<Void>(name: "a\(index)", conditions: [key]) { _ in
                    check()
                    await Task.yield()
                    check()
                }.erased
            }
            return Procedure<Void>(name: "s\(index)", conditions: [key]) { _ in check() }.erased
        }
        await withinDeadline("run on the executor") {
            queue.add(procedures)
            await queue.waitUntilAllFinished()
        }
        #expect(bodies.load(ordering: .relaxed) == 90)
        #expect(elsewhere.load(ordering: .relaxed) == 0)
        #expect(executor.ran.load(ordering: .relaxed) > 0)
    }

    @Test("without a preference, bodies run on the global executor, never on another queue's executor")
    func noPreference() async {
        let executor = OneThreadExecutor()
        let queue = ProcedureQueue(maxConcurrentProcedures: 2)
        let onExecutor = Atomic<Int>(0)
        let procedures = (0..<20).map { index in
            Procedure<Void>(name: "p\(index)") { _ in
                if executor.isCurrent { onExecutor.add(1, ordering: .relaxed) }
            }.erased
        }
        await withinDeadline("run without preference") {
            queue.add(procedures)
            await queue.waitUntilAllFinished()
        }
        #expect(onExecutor.load(ordering: .relaxed) == 0)
        #expect(executor.ran.load(ordering: .relaxed) == 0)
        #expect(queue.taskExecutor == nil)
    }
}
