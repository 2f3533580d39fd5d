import Locking
import Testing

@testable import RecipeSync

/// The feeder's gate: it wakes once the running chains fall to the level it waits for, not at every chain's end.
@Suite("ChainGate")
struct ChainGateTests {
    @Test("wait returns at once when no more than the level are running")
    func atOrBelowLevel() async {
        let gate = ChainGate()
        await gate.wait(untilAtMost: 0)
        gate.started(3)
        await gate.wait(untilAtMost: 3)
        #expect(gate.running == 3)
    }

    @Test("a waiting feeder wakes only when enough chains ended, and exactly once")
    func wakesAtTheLevel() async throws {
        let gate = ChainGate()
        gate.started(4)
        let woke = Locked(0)
        let waiter = Task {
            await gate.wait(untilAtMost: 1)
            woke.withLock { $0 += 1 }
        }
        while !gate.hasWaiter { try await Task.sleep(for: .milliseconds(1)) }
        // Ending two of four leaves two running, above the level.
        gate.ended()
        gate.ended()
        try await Task.sleep(for: .milliseconds(50))
        #expect(woke.withLock { $0 } == 0, "woke with \(gate.running) running, above the level 1")
        gate.ended()
        await waiter.value
        #expect(woke.withLock { $0 } == 1)
        gate.ended()
        #expect(gate.running == 0)
    }
}
