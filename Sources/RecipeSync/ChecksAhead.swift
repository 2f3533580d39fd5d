import Locking

/// Image checks asked ahead of the chains that need them. When a run claims a batch of recipes, the images they will
/// send are asked about at once (one `POST /v1/images/missing`), so that each chain's image step finds its answer, or
/// joins the request on its way, instead of spending a round trip of its own while its slot waits (docs/sync-engine.md,
/// "How the chains' requests travel").
///
/// An answer is taken once: a retry of the step, or a second recipe showing the same image, asks the server again. An
/// ask that failed answers nothing, and the chains ask as they would have.
final class ChecksAhead: Sendable {
    private enum Entry {
        /// Asked; the chains waiting for the answer, by waiter id.
        case asking([UInt64: CheckedContinuation<Bool?, Never>])
        /// Answered, not taken yet: whether the server lacks the image.
        case answered(Bool)
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Waiters cancelled before they were registered.
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 1
    }

    private let state = Locked(State())

    /// Asks about those of `images` not asked already, with `ask` (each image → whether the server lacks it, in
    /// order; nil when the server cannot be asked that way or did not answer).
    func ask(_ images: [String], with ask: @escaping @Sendable ([String]) async -> [Bool]?) {
        let fresh = state.withLock { state in
            var fresh: [String] = []
            for image in images where state.entries[image] == nil {
                state.entries[image] = .asking([:])
                fresh.append(image)
            }
            return fresh
        }
        guard !fresh.isEmpty else { return }
        Task {
            let answers = await ask(fresh).flatMap { $0.count == fresh.count ? $0 : nil }
            let resumed = state.withLock { state in
                var resumed: [(CheckedContinuation<Bool?, Never>, Bool?)] = []
                for (index, image) in fresh.enumerated() {
                    guard case .asking(let waiters)? = state.entries[image] else { continue }
                    let answer = answers?[index]
                    if waiters.isEmpty, let answer {
                        state.entries[image] = .answered(answer)
                    } else {
                        state.entries[image] = nil
                        resumed += waiters.values.map { ($0, answer) }
                    }
                }
                return resumed
            }
            for (continuation, answer) in resumed { continuation.resume(returning: answer) }
        }
    }

    /// Whether the server lacks `image`, as asked ahead, taken; nil when it was not asked ahead, the ask failed or
    /// the caller was cancelled while it waited.
    func take(_ image: String) async -> Bool? {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        defer { state.withLock { _ = $0.cancelledEarly.remove(id) } }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
                let now: Bool?? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .some(nil) }
                    switch state.entries[image] {
                    case .answered(let lacks)?:
                        state.entries[image] = nil
                        return .some(lacks)
                    case .asking(var waiters)?:
                        waiters[id] = continuation
                        state.entries[image] = .asking(waiters)
                        return nil
                    case nil:
                        return .some(nil)
                    }
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Bool?, Never>? = state.withLock { state in
                guard case .asking(var waiters)? = state.entries[image], let waiter = waiters.removeValue(forKey: id)
                else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                state.entries[image] = .asking(waiters)
                return waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
