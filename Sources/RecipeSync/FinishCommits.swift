import Foundation
import RecipeStore
import Synchronization

/// Group commit of the chains' ends: a chain that ends while another's end is being written waits and goes in the
/// next transaction together with every other that arrived meanwhile. Each commit is synced to disk, so this turns
/// one sync per recipe into one per batch without delaying a chain that ends alone.
///
/// The first chain to arrive when no commit is running writes batches until none is waiting; the others wait
/// for their own result. A batch that fails fails for every chain in it.
final class FinishCommits: Sendable {
    private struct Waiting {
        let finish: ChainFinish
        let continuation: CheckedContinuation<Result<FinishedChain, StoreError>, Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        var committing = false
    }

    private let state = Mutex(State())
    private let commit: @Sendable ([ChainFinish]) throws(StoreError) -> [FinishedChain]

    /// `commit` records a batch in one transaction and returns one result per chain, in order.
    init(commit: @escaping @Sendable ([ChainFinish]) throws(StoreError) -> [FinishedChain]) {
        self.commit = commit
    }

    /// How many ends wait for the next commit (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Records `finish` (with whatever else is waiting) and returns what the store said about it.
    func record(_ finish: ChainFinish) async -> Result<FinishedChain, StoreError> {
        await withCheckedContinuation { continuation in
            let leads = state.withLock { state -> Bool in
                state.waiting.append(Waiting(finish: finish, continuation: continuation))
                guard !state.committing else { return false }
                state.committing = true
                return true
            }
            guard leads else { return }
            while true {
                let batch = state.withLock { state -> [Waiting] in
                    let taken = state.waiting
                    state.waiting = []
                    if taken.isEmpty { state.committing = false }
                    return taken
                }
                guard !batch.isEmpty else { return }
                let results: [Result<FinishedChain, StoreError>]
                do throws(StoreError) {
                    results = try commit(batch.map(\.finish)).map { .success($0) }
                } catch {
                    results = batch.map { _ in .failure(error) }
                }
                for (waiting, result) in zip(batch, results) { waiting.continuation.resume(returning: result) }
            }
        }
    }
}
