import Foundation
import Testing
@testable import RecipeModels

@Suite("Sync state shown to the user")
struct SyncInfoTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    let utc = TimeZone(identifier: "UTC")!

    @Test("a live lease reads as uploading, a lapsed one as pending")
    func leaseDecidesUploading() {
        var sync = SyncInfo(state: .uploading, revision: 2, leaseOwner: "4242:1", leaseExpiresAt: now + 10)
        #expect(sync.effectiveState(at: now) == .uploading)
        #expect(sync.leaseProcessID == 4242)
        sync.leaseExpiresAt = now - 1
        #expect(sync.effectiveState(at: now) == .pending)
    }

    @Test("a backoff whose time has passed reads as pending; one in the future as waiting")
    func backoffDecidesWaiting() {
        var sync = SyncInfo(state: .waiting, revision: 2, attempts: 1, nextAttemptAt: now + 60)
        #expect(sync.effectiveState(at: now) == .waiting)
        sync.nextAttemptAt = now - 60
        #expect(sync.effectiveState(at: now) == .pending)
    }

    @Test("cancelled, failed, synced and deleting are shown as stored")
    func terminalStatesAsStored() {
        for state in [SyncState.cancelled, .failed, .synced, .deleting] {
            #expect(SyncInfo(state: state, revision: 1).effectiveState(at: now) == state)
        }
    }

    @Test("blocked says why in words, and nothing when synced")
    func blockedReasons() {
        let clock = BlockedReason.clockTime(now + 600, now: now, timeZone: utc)
        #expect(BlockedReason.describe(SyncInfo(state: .synced, revision: 3, syncedRevision: 3), id: 1, at: now) == nil)
        #expect(BlockedReason.describe(
            SyncInfo(state: .waiting, revision: 2, attempts: 1, nextAttemptAt: now + 600, lastError: "503"),
            id: 1, at: now, timeZone: utc) == "retry at \(clock) after 503")
        #expect(BlockedReason.describe(
            SyncInfo(state: .pending, revision: 2, leaseOwner: "4242:9", leaseExpiresAt: now + 5), id: 1, at: now)
            == "uploading in pid 4242")
        #expect(BlockedReason.describe(SyncInfo(state: .cancelled, revision: 2), id: 1, at: now)?.hasPrefix("cancelled") == true)
        #expect(BlockedReason.describe(
            SyncInfo(state: .failed, revision: 2, lastError: "413 image too large"), id: 1, at: now)?
            .hasPrefix("failed: 413 image too large") == true)
        #expect(BlockedReason.describe(
            SyncInfo(state: .pending, revision: 2, offlineSince: now - 60), id: 1, at: now, timeZone: utc)
            == "offline since \(BlockedReason.clockTime(now - 60, now: now, timeZone: utc))")
    }

    @Test("advice names the recipe's own id, in the words of the prompt it is read at (a shell's or the REPL's)",
          arguments: [
            (SyncState.failed, CommandDialect.shell, "run `recipes sync 7` to try again"),
            (.failed, .repl, "run `sync 7` to try again"),
            (.cancelled, .shell, "cancelled; edit it or run `recipes sync 7` to resume"),
            (.cancelled, .repl, "cancelled; edit it or run `sync 7` to resume"),
            (.pending, .shell, "not on the server yet; run `recipes sync`"),
            (.pending, .repl, "not on the server yet; run `sync`"),
          ])
    func adviceInTheDialect(state: SyncState, dialect: CommandDialect, words: String) throws {
        let blocked = try #require(BlockedReason.describe(
            SyncInfo(state: state, revision: 2, lastError: "HTTP 413"), id: 7, at: now, dialect: dialect))
        #expect(blocked.hasSuffix(words), "\(blocked)")
        #expect(!blocked.contains("<id>"), "no placeholder for the person to fill in")
    }

    @Test("with no server set, what is still to send says to set one, not to sync; a failed recipe's advice stays", arguments: [
        (SyncState.pending, nil as Int64?, "not on the server yet; no server is set: `recipes config set server.url URL` (and server.token), then sync"),
        (.pending, 4, "changed here since the server's version 4; no server is set: `recipes config set server.url URL` (and server.token), then sync"),
        (.deleting, 4, "deletion not yet sent to the server; no server is set: `recipes config set server.url URL` (and server.token), then sync"),
        (.failed, 4, "failed: HTTP 413; run `recipes sync 7` to try again"),
    ])
    func adviceWithoutAServer(state: SyncState, version: Int64?, words: String) {
        let sync = SyncInfo(state: state, revision: 2, lastError: "HTTP 413", serverVersion: version)
        #expect(BlockedReason.describe(sync, id: 7, at: now, hasServer: false) == words)
    }

    @Test("a conflict's advice is `recipes resolve 4 --mine` in a shell and `resolve 4 mine` in the REPL")
    func conflictAdviceInTheDialect() {
        let conflict = RecipeConflict.deletedOnServer
        #expect(conflict.blocked(id: 4) == "deleted on the server, changed here — `recipes resolve 4 --mine` or `--theirs`")
        #expect(conflict.blocked(id: 4, dialect: .repl) == "deleted on the server, changed here — `resolve 4 mine` or `theirs`")
    }

    @Test("clock times show the date only when not today")
    func clockTimes() {
        let noon = Date(timeIntervalSince1970: TimeInterval(1_790_000_000 - 1_790_000_000 % 86_400 + 43_200))
        #expect(BlockedReason.clockTime(noon + 60, now: noon, timeZone: utc) == "12:01")
        #expect(BlockedReason.clockTime(noon + 86_400, now: noon, timeZone: utc).count == "yyyy-MM-dd HH:mm".count)
    }
}
