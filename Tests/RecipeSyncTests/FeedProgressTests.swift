import Foundation
import HTTPTestSupport
import Locking
import RecipeModels
import RecipeStore
@testable import RecipeSync
import RecipesTestSupport
import Testing

@Suite("A pull moves through the feed or stops with a message; an interrupted pull is not complete")
struct FeedProgressTests {
    /// A page of server `server` with one change per seq of `seqs`.
    func page(_ server: String = "s1", seqs: [Int64] = [], next: Int64, more: Bool) throws -> ChangesPage {
        let changes = seqs.map { seq in
            let uuid = UUID()
            return feedChange(seq: Int(seq), uuid, version: "1", document: recipeDocument(uuid, version: "1", name: "R\(seq)"))
        }
        let text = "{\"server\":\"\(server)\",\"changes\":[\(changes.joined(separator: ","))],\"next\":\(next),\"more\":\(more)}"
        return try #require(ChangesPage(Data(text.utf8)), "\(text)")
    }

    @Test("which pages move the pull forward, from a table")
    func table() throws {
        let cases: [(ChangesPage, Int64, String?, Int, Bool)] = try [
            // (page, since, cursor's server, server changes so far, proceeds)
            (page(seqs: [5, 6], next: 6, more: true), 4, "s1", 0, true),
            (page(seqs: [5, 6], next: 6, more: false), 4, "s1", 0, true),
            (page(next: 4, more: false), 4, "s1", 0, true),  // nothing new
            (page(next: 4, more: true), 4, "s1", 0, false),  // more, yet the same next
            (page(next: 3, more: true), 4, "s1", 0, false),  // next backwards
            (page(seqs: [4, 5], next: 5, more: true), 4, "s1", 0, false),  // a change the cursor has passed
            (page(seqs: [5, 6], next: 5, more: true), 4, "s1", 0, false),  // next before its own last change
            (page("s2", seqs: [1], next: 1, more: true), 0, "s1", 0, true),  // another server: followed once
            (page("s2", seqs: [1], next: 1, more: true), 0, nil, 0, true),  // the first pull
            (page("s3", seqs: [1], next: 1, more: true), 0, "s2", 1, false),  // and not again in the run
        ]
        for (page, since, server, changes, proceeds) in cases {
            let verdict = FeedProgress.judge(page, since: since, cursorServer: server, serverChanges: changes)
            #expect((verdict == .proceed) == proceeds, "\(page) since \(since): \(verdict)")
        }
    }

    /// A pull-only run of `home` against `server`; a run still going after a minute (a feed followed for ever) is
    /// interrupted and the test fails, so that the suite goes on.
    func pull(_ home: ClientHome, _ server: LoopbackHTTPServer, _ recorder: EventRecorder = EventRecorder()) async throws
        -> SyncSummary
    {
        let run = SyncRun(store: home.store, settings: scriptedSettings(server), options: SyncOptions(direction: .pullOnly),
                          emit: recorder.emit)
        let guardian = Task {
            try await Task.sleep(for: .seconds(60))
            Issue.record("the pull still ran after a minute")
            run.interrupt()
        }
        defer { guardian.cancel() }
        return try await run.run()
    }

    @Test("a feed that says more but does not move, or moves backwards, ends the pull with a message after one page")
    func feedThatDoesNotMove() async throws {
        for stuckNext in [1, 0] {
            let uuid = UUID()
            let server = try scriptedServer(feed: { _ in
                feedPage([feedChange(seq: 1, uuid, version: "1", document: recipeDocument(uuid, version: "1", name: "Soup"))],
                         next: stuckNext, more: true)
            })
            defer { server.stop() }
            let home = try ClientHome()
            let summary = try await pull(home, server)
            let asked = server.received.filter { $0.head.path.hasPrefix("/v1/changes") }.count
            #expect(asked <= 3, "the feed was asked \(asked) times")
            #expect(summary.verdict == .workLeft, "\(summary)")
            #expect(summary.pullStopped?.words.contains("check server.url") == true, "\(summary.pullStopped?.words ?? "none")")
        }
    }

    @Test("a server whose id changes on every page is followed once: bases are forgotten once, then the pull stops")
    func serverIdChangingEveryPage() async throws {
        let counter = Locked(0)
        let uuid = UUID()
        let server = try scriptedServer(feed: { since in
            let id = counter.withLock { count in
                count += 1
                return "server-\(count)"
            }
            let change = feedChange(seq: Int(since) + 1, uuid, version: "1", document: recipeDocument(uuid, version: "1", name: "Soup"))
            return "{\"server\":\"\(id)\",\"changes\":[\(change)],\"next\":\(since + 1),\"more\":true}"
        })
        defer { server.stop() }
        let home = try ClientHome()
        let summary = try await pull(home, server)
        #expect(counter.withLock { $0 } <= 3, "the feed was asked \(counter.withLock { $0 }) times")
        #expect(summary.pullStopped?.words.contains("the server's id changed again within one run") == true, "\(summary)")
        #expect(summary.pullStopped?.cause == .failed)
        #expect(try home.store.feedCursor().server == "server-1")
    }

    @Test("Ctrl-C between two pages of a pull: what was pulled stays, the run is not complete (exit 75)")
    func interruptedPullIsNotComplete() async throws {
        let runBox = Locked<SyncRun?>(nil)
        let server = try scriptedServer(feed: { since in
            // Ctrl-C arrives while the second page is asked for; the page still comes.
            if since == 1 { runBox.withLock { $0 }?.interrupt() }
            let uuid = UUID()
            return feedPage([feedChange(seq: Int(since) + 1, uuid, version: "1", document: recipeDocument(
                uuid, version: "1", name: "Recipe \(since + 1)"))], next: Int(since) + 1, more: since < 9)
        })
        defer { server.stop() }
        let home = try ClientHome()
        let run = SyncRun(store: home.store, settings: scriptedSettings(server), options: SyncOptions(direction: .pullOnly),
                          emit: { _ in })
        runBox.withLock { $0 = run }
        let summary = try await run.run()
        #expect(summary.verdict == .workLeft, "\(summary)")
        #expect(summary.pullStopped != nil)
        let cursor = try home.store.feedCursor().seq
        #expect(cursor >= 1 && cursor < 10, "cursor at \(cursor)")
        #expect(try home.store.recipes().count == Int(cursor))
    }
}
