import Foundation
import RecipesTestSupport
import Testing

/// A sync without ids leaves failed and cancelled recipes alone, and says so every time (docs/commands.md, `recipes sync`).
@Suite("sync reminds of failed and cancelled recipes instead of saying `nothing to do`")
struct StoppedRecipeReminderTests {
    @Test("a failed and a cancelled recipe are named in every later run, each with its command; failed exits 1")
    func remindedInEveryRun() throws {
        let home = Client()
        // The server refuses Soup's first upload for good (422); Bread is cancelled before any sync.
        let server = try home.startServer(faults: ["PUT /v1/recipes/*: status=422 first=1"])
        defer { server.stop() }
        try home.edit(["new Soup", "new Bread"])
        #expect(try home.run(["cancel", "2"]).status == 0)
        let first = try home.run(["sync", "1"])
        #expect(first.status == 1 && first.stdout.contains("#1 Soup: failed: "), "\(first)")
        #expect(first.stdout.contains("`recipes sync 1` tries it again"), "\(first)")

        let again = try home.run(["sync"])
        #expect(again.status == 1, "a recipe failed earlier still needs a person: \(again)")
        #expect(again.stdout.contains("#1 Soup: skipped: failed earlier: "), "\(again)")
        #expect(again.stdout.contains("not retried without its id; `recipes sync 1` tries it again\n"), "\(again)")
        #expect(again.stdout.contains("#2 Bread: skipped: cancelled earlier; left alone until edited or synced by id; `recipes sync 2` resumes it\n"), "\(again)")
        #expect(again.stdout.hasSuffix("sync: 1 failed earlier, not retried, 1 cancelled earlier\n"), "\(again)")
        #expect(!again.stdout.contains("nothing to do"))
        let json = jsonEvents(try home.run(["sync", "--json"]).stdout)
        #expect(json.last?["failedEarlier"] as? Int == 1 && json.last?["cancelledEarlier"] as? Int == 1, "\(json)")

        #expect(try home.run(["sync", "1"]).status == 0, "synced by id, the failed one goes (the fault was once)")
        let cancelledOnly = try home.run(["sync"])
        #expect(cancelledOnly.status == 0, "a cancelled recipe was not asked for: \(cancelledOnly)")
        #expect(cancelledOnly.stdout.hasSuffix("sync: 1 cancelled earlier\n"), "\(cancelledOnly)")
        #expect(try home.run(["sync", "2"]).status == 0)
        #expect(try home.run(["sync"]).stdout == "sync: nothing to do\n", "said only when every recipe is on the server")
    }

    @Test("--background logs and mails the reminder once a day, not every run; its exit status stays 1")
    func backgroundOnceADay() throws {
        let home = Client()
        let server = try home.startServer(faults: ["PUT /v1/recipes/*: status=422 first=1"])
        defer { server.stop() }
        try home.edit(["new Soup"])
        #expect(try home.run(["sync"]).status == 1)
        let logURL = home.homeURL.appendingPathComponent("logs/sync.log")
        let first = try home.run(["sync", "--background"])
        #expect(first.status == 1 && first.stdout.isEmpty, "\(first)")
        #expect(first.stderr.hasPrefix("recipes: #1 Soup: skipped: failed earlier: ") && first.stderr.contains("`recipes sync 1` tries it again"), "\(first)")
        let logged = try String(contentsOf: logURL, encoding: .utf8)
        #expect(logged.contains("#1 Soup: skipped: failed earlier") && logged.contains("sync: 1 failed earlier, not retried"))
        for _ in 0..<2 {
            let later = try home.run(["sync", "--background"])
            #expect(later.status == 1 && later.stderr.isEmpty, "reminded today already: \(later)")
        }
        #expect(try String(contentsOf: logURL, encoding: .utf8) == logged, "no line until a day has passed")
        // A day later (the time of the last reminder set back a day), it reminds again.
        let marker = home.homeURL.appendingPathComponent("logs/reminded")
        let last = try #require(Double(try String(contentsOf: marker, encoding: .utf8)))
        try String(Int64(last) - 86_400).write(to: marker, atomically: true, encoding: .utf8)
        let nextDay = try home.run(["sync", "--background"])
        #expect(nextDay.stderr.contains("#1 Soup: skipped: failed earlier"), "\(nextDay)")
    }
}
