import Foundation
import OperationEngine
import RecipeModels
import RecipeStore
import Testing
@testable import RecipeSync

@Suite("How a chain ends, as a plain function: (claim, outcome, attempts, stop reason, now) -> result, events, counts")
struct ChainConclusionTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

    static func claim(deleting: Bool = false) -> SyncClaim {
        var sync = SyncInfo(state: deleting ? .deleting : .pending, revision: 4, leaseOwner: "1:1")
        sync.deleted = deleting
        return SyncClaim(recipe: Recipe(id: 7, uuid: uuid, title: "Soup", sync: sync, dateModified: now))
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var claim: SyncClaim = ChainConclusionTests.claim()
        var outcome: ProcedureOutcome
        var pushed: PushResult?
        var attempts = 1
        var stop: StopReason?
        var result: ChainResult
        var kinds: [SyncEvent.Kind]
        var error: String?
        var tally: SyncSummary
        var stopsRun: StopReason?
        var testDescription: String { name }
    }

    static let transient = StepFailure(.transient(retryAfter: nil), "HTTP 503")

    static let table: [Row] = [
        Row(name: "uploaded: done, counted once recorded",
            outcome: .succeeded, pushed: .uploaded(revision: 4, version: 3, base: RecipeFields(title: "Soup")),
            result: .uploaded(revision: 4, version: 3, base: RecipeFields(title: "Soup")), kinds: [.done], tally: SyncSummary()),
        Row(name: "a deletion confirmed: deleted", claim: claim(deleting: true),
            outcome: .succeeded, result: .deleted, kinds: [.done], tally: SyncSummary()),
        Row(name: "a permanent failure: failed with the server's words",
            outcome: .failed(StepFailure(.permanent, "recipe: HTTP 422: invalid")), attempts: 2,
            result: .failed(attempts: 2, error: "recipe: HTTP 422: invalid"), kinds: [.failed],
            error: "recipe: HTTP 422: invalid", tally: SyncSummary(failed: 1)),
        Row(name: "the last allowed attempt failed transiently: failed, saying it gave up",
            outcome: .failed(transient), attempts: 8,
            result: .failed(attempts: 8, error: "gave up after 8 attempts: HTTP 503"), kinds: [.failed],
            error: "gave up after 8 attempts: HTTP 503", tally: SyncSummary(failed: 1)),
        Row(name: "merged with another device's write, with conflicts: a conflict for a person, not a failure",
            outcome: .failed(StepFailure(.conflict, "changed here and on the server: title")),
            result: .interrupted(error: nil), kinds: [.conflict], error: "changed here and on the server: title",
            tally: SyncSummary(conflicts: 1)),
        Row(name: "another device kept writing while this one merged: left for a later run",
            outcome: .failed(StepFailure(.later, "another device kept writing")),
            result: .interrupted(error: "another device kept writing"), kinds: [.skipped], error: "another device kept writing",
            tally: SyncSummary(waiting: 1)),
        Row(name: "refused credentials: skipped, not failed; the whole run stops",
            outcome: .failed(StepFailure(.credentials, "not uploaded: the server refused the credentials")),
            result: .interrupted(error: "not uploaded: the server refused the credentials"), kinds: [.skipped],
            error: "not uploaded: the server refused the credentials", tally: SyncSummary(waiting: 1, credentialsRefused: true),
            stopsRun: .credentials),
        Row(name: "the lease lost: cancelled, left as it was",
            outcome: .failed(StepFailure(.leaseLost, "taken over")), result: .interrupted(error: nil), kinds: [.cancelled],
            error: "taken over", tally: SyncSummary(cancelled: 1)),
        Row(name: "cancelled by recipes cancel: cancelled by the user",
            outcome: .cancelled(.requested("x")), stop: .user, result: .cancelledByUser, kinds: [.cancelled],
            error: "cancelled with `recipes cancel`", tally: SyncSummary(cancelled: 1)),
        Row(name: "Ctrl-C: interrupted, left for a later run",
            outcome: .cancelled(.requested("x")), stop: .interrupted, result: .interrupted(error: nil), kinds: [.cancelled],
            error: "interrupted", tally: SyncSummary(cancelled: 1)),
        Row(name: "stopped by another chain's refused credentials: not sent, still due",
            outcome: .cancelled(.requested("x")), stop: .credentials, result: .interrupted(error: nil), kinds: [.skipped],
            error: "not sent: the server refused the credentials", tally: SyncSummary(waiting: 1)),
        Row(name: "unreachable: offline, no attempt counted",
            outcome: .deferred(Deferral(error: EngineError.unreachable(host: "h", port: 1), retryAfter: nil, attempts: 0)),
            result: .offline(since: now), kinds: [.offline],
            error: "h:1 is not reachable; nothing was sent. Check the network or the server address, then try again.",
            tally: SyncSummary(waiting: 1)),
        Row(name: "a wait longer than --max-wait: the retry announced, then skipped, left for a later run",
            outcome: .deferred(Deferral(error: transient, retryAfter: .seconds(60), attempts: 2)),
            result: .retryLater(at: now + 60, attempts: 2, error: "HTTP 503"), kinds: [.retry, .skipped],
            error: "next attempt in 60 s, later than --max-wait; left for a later run", tally: SyncSummary(waiting: 1)),
    ]

    @Test("each ending", arguments: table)
    func decide(row: Row) {
        let ending = ChainConclusion.Ending(
            claim: row.claim, outcome: row.outcome, step: .recipe, attempts: row.attempts, pushed: row.pushed, stop: row.stop)
        let conclusion = ChainConclusion.decide(ending, now: Self.now, retryCap: .seconds(86_400))
        #expect(conclusion.result == row.result)
        #expect(conclusion.events.map(\.kind) == row.kinds)
        #expect(conclusion.events.last?.error == row.error)
        #expect(conclusion.tally == row.tally)
        #expect(conclusion.stopsRun == row.stopsRun)
        #expect(conclusion.events.allSatisfy { $0.id == 7 && $0.revision == 4 && $0.time == Self.now && $0.step == .recipe })
    }

    @Test("a deferral's retry event names the attempt to come and its delay")
    func deferralRetryEvent() throws {
        let ending = ChainConclusion.Ending(
            claim: Self.claim(), outcome: .deferred(Deferral(error: Self.transient, retryAfter: .seconds(90), attempts: 3)),
            step: .image, attempts: 3, pushed: nil, stop: nil)
        let retry = try #require(ChainConclusion.decide(ending, now: Self.now, retryCap: .seconds(86_400)).events.first)
        #expect(retry.attempt == 4)
        #expect(retry.delay == 90)
        #expect(retry.error == "HTTP 503")
    }

    @Test("a Retry-After above the cap is described as asked and capped")
    func cappedWords() {
        let asked = StepFailure(.transient(retryAfter: .seconds(999_999_999)), "HTTP 503")
        #expect(ChainConclusion.describeWait(asked, cap: .seconds(86_400))
            == "HTTP 503; the server asked to wait 999999999 s, recipes waits 24 h at most")
        #expect(ChainConclusion.describeWait(Self.transient, cap: .seconds(86_400)) == "HTTP 503")
    }
}
