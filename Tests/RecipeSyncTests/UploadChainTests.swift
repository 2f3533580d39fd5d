import HTTPTestSupport
import Foundation
import Locking
import OperationEngine
import OperationEngineTestSupport
import RecipeModels
import RecipeStore
import RecipesTestSupport
import Testing
import Transport
@testable import RecipeSync

@Suite("A recipe's upload is the seeds' chain: a group holding the recipe's key, image then recipe, on the run's clock")
struct UploadChainTests {
    /// The parts of a chain that is only built, never run.
    static func parts(_ home: ClientHome) throws -> UploadChain.Parts {
        let api = try #require(ServerAPI(baseURL: "http://127.0.0.1:9"))
        let settings = SyncSettings(api: api, probe: .constant(true))
        let registry = ChainRegistry()
        let outbox = Outbox(directory: home.store.home.outboxURL)
        let recorder = EndRecorder(store: home.store, owner: "1:1", outbox: outbox, tally: Locked(SyncSummary()), emit: { _ in })
        let poller = LeasePoller(store: home.store, settings: settings, registry: registry)
        let destination = HTTPDestination(
            api: api, client: try HTTPClient(configuration: HTTPClientConfiguration()),
            reachability: settings.reachability, settings: settings)
        let steps = ChainSteps(
            destination: destination, store: home.store, settings: settings, outbox: outbox, recorder: recorder,
            poller: poller, report: { _, _, _ in })
        return UploadChain.Parts(steps: steps, retry: .standard, reachability: nil, observe: { _, _ in BlockObserver() })
    }

    static func claim(_ home: ClientHome, _ recipe: Recipe) throws -> SyncClaim {
        try #require(home.store.claim(
            ids: [recipe.id], owner: "1:1", now: Date(), leaseDuration: 60, isOwnerAlive: { _ in true }).claims.first)
    }

    @Test("with an image to send: a group on recipe:<uuid> whose recipe step depends on the image step")
    func imageThenRecipe() throws {
        let home = try ClientHome()
        let recipe = try home.makeRecipe("soup", image: pngBytes(size: 512, seed: 2))
        let chain = UploadChain(try Self.claim(home, recipe), try Self.parts(home))
        let image = try #require(chain.imageStep)
        #expect(chain.group.exclusivityKeys == ["recipe:\(recipe.uuid.lowercasedString)"])
        #expect(chain.group.children == [image.erased, chain.lastStep.erased])
        #expect(chain.lastStep.dependencies == [image.erased])
        #expect(image.exclusivityKeys.isEmpty && chain.lastStep.exclusivityKeys.isEmpty, "the key is the group's alone")
    }

    @Test("after a stale write: read, merge, write in a group on recipe:<uuid>; no read when the answer held the copy")
    func mergeChainShape() throws {
        let home = try ClientHome()
        let recipe = try home.makeRecipe("soup")
        let claim = try Self.claim(home, recipe)
        let parts = try Self.parts(home)
        let unread = MergeChain(claim, after: StaleWrite(claim: claim, image: nil, copy: nil, round: 1), confirmed: nil,
                                attempts: 1, parts)
        let read = try #require(unread.readStep)
        let write = try #require(unread.writeStep)
        #expect(unread.group.exclusivityKeys == ["recipe:\(recipe.uuid.lowercasedString)"])
        #expect(unread.group.children == [read.erased, unread.mergeStep.erased, write.erased])
        #expect(unread.mergeStep.dependencies == [read.erased] && write.dependencies == [unread.mergeStep.erased])
        #expect(unread.group.children.allSatisfy { $0.exclusivityKeys.isEmpty }, "the key is the group's alone")

        let known = MergeChain(
            claim, after: StaleWrite(claim: claim, image: nil, copy: .deleted(version: 2), round: 2), confirmed: nil,
            attempts: 1, parts)
        #expect(known.readStep == nil && known.group.children.count == 2, "the copy came with the answer: no read")
    }

    @Test("without an image to send, or for a deletion: one step in the group")
    func oneStep() async throws {
        let home = try ClientHome()
        let plain = try home.makeRecipe("plain")
        let chain = UploadChain(try Self.claim(home, plain), try Self.parts(home))
        #expect(chain.imageStep == nil)
        #expect(chain.group.children == [chain.lastStep.erased])
        #expect(chain.lastStep.name.hasPrefix("recipe"))

        try await withSyncServer { server in _ = try await home.sync(server) }
        try home.store.delete(plain.id)
        let deletion = UploadChain(try Self.claim(home, try home.recipe(plain.id)), try Self.parts(home))
        #expect(deletion.lastStep.name.hasPrefix("delete"))
        #expect(deletion.group.children == [deletion.lastStep.erased])
    }

    @Test("a retry's backoff is slept on the run's clock: a 10 s wait passes when a manual clock is moved, not in real time")
    func backoffOnTheRunsClock() async throws {
        try await withSyncServer(faults: ["PUT /v1/recipes/*: status=503 first=1"]) { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("soup")
            let clock = ManualClock()
            let start = Date(timeIntervalSince1970: 1_790_000_000)
            let settings = try SyncSettings(
                api: server.api, token: server.token, probe: .constant(true), clock: clock, random: FixedRandomSource(1),
                now: { start.addingTimeInterval((clock.now / .seconds(1))) }, pollInterval: .milliseconds(10),
                baseDelay: .seconds(10), maxDelay: .seconds(10))
            let run = SyncRun(store: home.store, settings: settings, options: SyncOptions(), emit: { _ in })
            let finished = Locked(false)
            let task = Task {
                defer { finished.withLock { $0 = true } }
                return try await run.run()
            }
            while !finished.withLock({ $0 }) {
                clock.advance(by: .milliseconds(500))
                try await Task.sleep(for: .milliseconds(2))
            }
            let summary = try await task.value
            #expect(summary.verdict == .complete)
            #expect(clock.requestedSleeps.contains(.seconds(10)), "the backoff went through the injected clock")
            #expect(try home.recipe(recipe.id).sync.state == .synced)
            #expect(server.requests().filter(\.isRecipePut).count == 2)
        }
    }
}
