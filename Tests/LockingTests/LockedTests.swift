import Foundation
import Locking
import Testing

@Suite("Locked")
struct LockedTests {
    /// Under `make tsan` this also proves ThreadSanitizer sees the lock: the counter is plain memory, so a lock whose
    /// contended path it cannot see (as `Synchronization.Mutex` on Linux) is reported as a race here.
    @Test("threads contending for one lock each get it alone: no update is lost and no two bodies overlap")
    func exclusiveUnderContention() async {
        struct Shared {
            var count = 0
            var inside = false
            var overlaps = 0
        }
        let shared = Locked(Shared())
        let threads = 4
        let rounds = 20_000
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let finished = Locked(0)
            for _ in 0..<threads {
                Thread.detachNewThread {
                    for _ in 0..<rounds {
                        shared.withLock { state in
                            if state.inside { state.overlaps += 1 }
                            state.inside = true
                            state.count += 1
                            state.inside = false
                        }
                    }
                    let last = finished.withLock { count in
                        count += 1
                        return count == threads
                    }
                    if last { done.resume() }
                }
            }
        }
        let result = shared.withLock { $0 }
        #expect(result.count == threads * rounds)
        #expect(result.overlaps == 0)
    }

    @Test("a value moved into the lock is read and replaced through withLock, and its result is returned")
    func valueRoundTrip() {
        let lock = Locked([1, 2, 3])
        let popped = lock.withLock { $0.popLast() }
        lock.withLock { $0.append(9) }
        #expect(popped == 3)
        #expect(lock.withLock { $0 } == [1, 2, 9])
    }
}
