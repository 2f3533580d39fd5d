import Foundation
import RecipeModels
@testable import RecipeStore
@testable import RecipeSync
import Synchronization
import Testing

@Suite("FinishCommits: chains that end during a commit go in the next one together, each gets its own result")
struct FinishCommitsTests {
    static func finish(_ id: Int64) -> ChainFinish {
        let recipe = Recipe(
            id: id, uuid: UUID(), title: "r\(id)", description: "", recipeYield: "", keywords: "", ingredients: [],
            steps: [], image: nil, sync: SyncInfo(state: .pending, revision: 1), dateModified: Date(timeIntervalSince1970: 0))
        return ChainFinish(claim: SyncClaim(recipe: recipe, isDeletion: false), result: .uploaded(revision: 1), now: Date())
    }

    /// Each chain's result names its own recipe, so a mix-up between waiting chains shows.
    static func results(of batch: [ChainFinish]) -> [FinishedChain] {
        batch.map { FinishedChain(unneededMedia: ["\($0.claim.recipe.id)"], editedMeanwhile: false) }
    }

    @Test("while the first commit runs, 49 more chains end: they are written together in the second, and each gets its own result")
    func batchesWhileCommitting() async throws {
        let batches = Mutex<[[Int64]]>([])
        let holder = Mutex<FinishCommits?>(nil)
        let commits = FinishCommits { batch throws(StoreError) in
            batches.withLock { $0.append(batch.map(\.claim.recipe.id)) }
            if batch.count == 1, batch[0].claim.recipe.id == 0 {
                // Hold the first commit until every other chain is waiting (at most 10 s, so a failure cannot hang).
                let deadline = ContinuousClock.now + .seconds(10)
                while holder.withLock({ $0 })?.waitingCount != 49, ContinuousClock.now < deadline { usleep(1_000) }
            }
            return Self.results(of: batch)
        }
        holder.withLock { $0 = commits }
        let first = Task { await commits.record(Self.finish(0)) }
        while batches.withLock({ $0.isEmpty }) { await Task.yield() }
        let results = await withTaskGroup(of: (Int64, Result<FinishedChain, StoreError>).self) { group in
            for id in 1...49 { group.addTask { (Int64(id), await commits.record(Self.finish(Int64(id)))) } }
            var all: [(Int64, Result<FinishedChain, StoreError>)] = []
            for await result in group { all.append(result) }
            return all
        }
        let firstResult = await first.value
        #expect(try firstResult.get().unneededMedia == ["0"])
        for (id, result) in results { #expect(try result.get().unneededMedia == ["\(id)"]) }
        let written = batches.withLock { $0 }
        #expect(written.count == 2)
        #expect(written.first == [0])
        #expect(Set(written.last ?? []) == Set(1...49))
    }

    @Test("a failed commit fails every chain in its batch, and the next chain is committed afresh")
    func failureFailsTheBatchOnly() async throws {
        let fail = Mutex(true)
        let commits = FinishCommits { batch throws(StoreError) in
            if fail.withLock({ $0 }) { throw StoreError(.fileSystem(path: "db", detail: "disk full")) }
            return Self.results(of: batch)
        }
        let failed = await commits.record(Self.finish(1))
        #expect(throws: StoreError.self) { try failed.get() }
        fail.withLock { $0 = false }
        #expect(try await commits.record(Self.finish(2)).get().unneededMedia == ["2"])
    }
}
