import Foundation
import RecipeStore
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipesCommandLine

/// A Mealie version as the sync keeps it: `updatedAt` 2026-11-27T14:37:28.546335Z in microseconds since the epoch.
private let mealieVersion: Int64 = 1_795_790_248_546_335
/// The words of `mealieVersion`: its time in UTC, to the second.
private let mealieTime = "2026-11-27 14:37:28 UTC"

private func event(_ kind: SyncEvent.Kind, version: Int64?, step: SyncEvent.Step? = nil, error: String? = nil) -> SyncEvent {
    SyncEvent(
        kind, id: 3, uuid: UUID(uuidString: "6F1C2A3B-4D5E-4F60-8172-93A4B5C6D7E8")!, title: "Tomato soup", step: step,
        revision: 5, error: error, time: Date(timeIntervalSince1970: 1_795_790_250), version: version)
}

@Suite("A version of the destination in text: the contract server's a number, a Mealie's the time Mealie changed the recipe")
struct DestinationVersionWordsTests {
    @Test("the words of each kind's versions, from a table: a Mealie version outside 2000–2099 stays a number")
    func wordsFromATable() {
        let table: [(version: Int64, kind: ServerKind, phrase: String, value: String)] = [
            (1, .http, "version 1", "1"),
            (mealieVersion, .http, "version 1795790248546335", "1795790248546335"),  // http: always the counter
            (1_764_259_212_123_456, .mealie, "updated on Mealie at 2025-11-27 16:00:12 UTC", "2025-11-27 16:00:12 UTC"),
            (mealieVersion, .mealie, "updated on Mealie at " + mealieTime, mealieTime),
            (1_764_259_212_999_999, .mealie, "updated on Mealie at 2025-11-27 16:00:12 UTC", "2025-11-27 16:00:12 UTC"),  // cut, not rounded
            (946_684_800_000_000, .mealie, "updated on Mealie at 2000-01-01 00:00:00 UTC", "2000-01-01 00:00:00 UTC"),
            (4_102_444_799_999_999, .mealie, "updated on Mealie at 2099-12-31 23:59:59 UTC", "2099-12-31 23:59:59 UTC"),
            (946_684_799_999_999, .mealie, "version 946684799999999", "946684799999999"),  // before 2000
            (4_102_444_800_000_000, .mealie, "version 4102444800000000", "4102444800000000"),  // 2100
            (1, .mealie, "version 1", "1"),  // kept from an http server this home synced with before
            (0, .mealie, "version 0", "0"),
            (-5, .mealie, "version -5", "-5"),
            (Int64.max, .mealie, "version 9223372036854775807", "9223372036854775807"),
        ]
        for row in table {
            #expect(DestinationVersionWords.describe(version: row.version, kind: row.kind) == row.phrase, "\(row)")
            #expect(DestinationVersionWords(version: row.version, kind: row.kind).value == row.value, "\(row)")
        }
    }

    @Test("sync lines: done, pulled and merged name a Mealie version by its time, the contract server's by its number")
    func syncLines() {
        let merge = "another device wrote first; sending the merge as revision 5 (round 2 of 3)"
        let table: [(SyncEvent, ServerKind, String)] = [
            (event(.done, version: 4, step: .recipe), .http, "done (version 4 on the server)"),
            (event(.pulled, version: 4), .http, "pulled (version 4 from the server)"),
            (event(.merged, version: 4, step: .recipe, error: merge), .http, "merged with the server's version 4; " + merge),
            (event(.done, version: mealieVersion, step: .recipe), .mealie, "done (updated on Mealie at \(mealieTime))"),
            (event(.pulled, version: mealieVersion), .mealie, "pulled (updated on Mealie at \(mealieTime))"),
            (event(.merged, version: mealieVersion, step: .recipe, error: merge), .mealie,
             "merged with the server's copy updated on Mealie at \(mealieTime); " + merge),
            (event(.merged, version: mealieVersion), .mealie, "merged with the server's copy updated on Mealie at \(mealieTime)"),
            (event(.done, version: 4, step: .recipe), .mealie, "done (version 4 on the server)"),  // no plausible time
            (event(.done, version: nil, step: .delete), .mealie, "done (deleted on the server)"),
        ]
        for (event, kind, words) in table {
            #expect(SyncEventText.line(event, server: kind) == "#3 Tomato soup: " + words, "\(kind) \(event.kind)")
        }
    }

    @Test("each output of a Mealie sync shows its time: plain, terminal and cron's log; --json keeps the number")
    func outputsOfEachMode() throws {
        let dir = TemporaryDirectory()
        let logs = dir.url.appendingPathComponent("logs")
        for mode in [SyncOutputMode.plain, .terminal, .background, .json] {
            let console = CapturingConsole()
            let output = makeSyncOutput(
                mode: mode, console: console, logsDirectory: logs, environment: ["NO_COLOR": "1"], server: .mealie)
            output.emit(event(.done, version: mealieVersion, step: .recipe))
            output.finish(SyncSummary(done: 1))
            switch mode {
            case .plain, .terminal:
                #expect(console.stdout.contains("#3 Tomato soup: done (updated on Mealie at \(mealieTime))\n"), "\(mode): \(console.stdout)")
            case .background:
                let log = try String(contentsOf: logs.appendingPathComponent("sync.log"), encoding: .utf8)
                #expect(log.contains("#3 Tomato soup: done (updated on Mealie at \(mealieTime))\n"), "\(log)")
            case .json:
                let first = try #require(console.stdout.split(separator: "\n").first)
                let object = try #require(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
                #expect((object["version"] as? NSNumber)?.int64Value == mealieVersion, "\(first)")
                #expect(!console.stdout.contains("updated on Mealie"))
            }
        }
    }

    @Test("the watcher shows a reloaded server.kind's words from its next pass on")
    func watchFollowsAReload() throws {
        let dir = TemporaryDirectory()
        let console = CapturingConsole()
        let context = CommandContext(home: dir.home, environment: [:], console: console)
        let output = WatchCommandOutput(mode: .plain, context: context, server: .http)
        output.emit(event(.done, version: mealieVersion, step: .recipe))
        output.finish(SyncSummary(done: 1))
        #expect(console.stdout.contains("done (version 1795790248546335 on the server)\n"), "\(console.stdout)")
        output.showVersions(of: .mealie)
        output.emit(event(.done, version: mealieVersion, step: .recipe))
        output.finish(SyncSummary(done: 1))
        #expect(console.stdout.contains("done (updated on Mealie at \(mealieTime))\n"), "\(console.stdout)")
    }

    @Test("status and show (and the REPL's) name a Mealie version by its time; with http the same home shows the number")
    func statusAndShow() throws {
        let dir = try homeSynced(at: mealieVersion)
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["config", "set", "server.kind", "mealie"] + home).status == 0)
        let status = try runRecipes(["status"] + home)
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("  synced  1    \(mealieTime)  Lentil stew"), "\(status.stdout)")
        #expect(!status.stdout.contains("1795790248546335"), "\(status.stdout)")
        let show = try runRecipes(["show", "1", "--details"] + home)
        #expect(show.stdout.contains("\nserver:       updated on Mealie at \(mealieTime)\n"), "\(show.stdout)")
        let repl = try runRecipes(["edit"] + home, input: "show 1 --details\nstatus\n")
        #expect(repl.stdout.contains("\nserver:       updated on Mealie at \(mealieTime)\n"), "\(repl.stdout)")
        #expect(repl.stdout.contains("  synced  1    \(mealieTime)  Lentil stew"), "\(repl.stdout)")
        #expect(try runRecipes(["config", "set", "server.kind", "http"] + home).status == 0)
        #expect(try runRecipes(["status"] + home).stdout.contains("  synced  1    1795790248546335  Lentil stew"))
        #expect(try runRecipes(["show", "1", "--details"] + home).stdout.contains("\nserver:       version 1795790248546335\n"))
    }

    @Test("on a terminal, status of a recipe changed since Mealie's copy says since when; --json keeps the number")
    func changedSinceOnATerminal() throws {
        let dir = try homeSynced(at: mealieVersion, thenEdited: true)
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["config", "set", "server.kind", "mealie"] + home).status == 0)
        // A server set, so that the advice is to sync (with none, it is to set one).
        #expect(try runRecipes(["config", "set", "server.url", "http://127.0.0.1:9"] + home).status == 0)
        let since = "changed here since the server's copy updated on Mealie at \(mealieTime); run `recipes sync`"
        let terminal = try runOnTerminal(["status"] + home, columns: 200)
        #expect(terminal.status == 0 && terminal.screen.contains(since), "\(terminal.screen)")
        #expect(terminal.screen.contains("  pending  2    \(mealieTime)  Lentil stew"), "\(terminal.screen)")
        #expect(try runRecipes(["show", "1"] + home).stdout.contains("\nblocked:      " + since + "\n"))
        let json = try runRecipes(["status", "--json"] + home)
        let entries = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect((entries.first?["serverVersion"] as? NSNumber)?.int64Value == mealieVersion, "\(json.stdout)")
        let shown = try runRecipes(["show", "1", "--json"] + home)
        #expect(shown.stdout.contains("1795790248546335") && !shown.stdout.contains("updated on Mealie"), "\(shown.stdout)")
    }

    @Test("a Mealie home holding a version no Mealie time can be (kept from an http server) shows the number")
    func implausibleMealieVersion() throws {
        let dir = try homeSynced(at: 3)
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["config", "set", "server.kind", "mealie"] + home).status == 0)
        #expect(try runRecipes(["show", "1", "--details"] + home).stdout.contains("\nserver:       version 3\n"))
        #expect(try runRecipes(["status"] + home).stdout.contains("  synced  1    3       Lentil stew"))
    }

    /// A home whose recipe 1, "Lentil stew", the server acknowledged at `version` (through the store's sync API, no
    /// server running); with `thenEdited`, changed here since (pending).
    private func homeSynced(at version: Int64, thenEdited: Bool = false) throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let recipe = try store.create(title: "Lentil stew")
        let owner = "100:1"
        let batch = try store.claim(ids: [recipe.id], owner: owner, now: Date(), leaseDuration: 60, isOwnerAlive: { _ in true })
        let claim = try #require(batch.claims.first)
        try store.finishChains(
            [ChainEnding(claim, .uploaded(revision: claim.revision, version: version, base: RecipeFields(recipe)))], owner: owner)
        if thenEdited { try store.apply(.addIngredient("250 g red lentils"), to: recipe.id) }
        return dir
    }
}
