import Foundation
import RecipesTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `recipes sync --watch` started in `client`'s home with `arguments` after it; waits until it says it is watching
/// and its first pass has ended (the `--json` notices), so that what the test does next is an event it must see.
func startWatcher(
    _ client: Client, _ arguments: [String] = ["--json"], waitForFirstPass: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ChildProcess {
    let watcher = try client.start(["sync", "--watch"] + arguments)
    if waitForFirstPass, arguments.contains("--json") {
        let ready = waitUntil(timeout: 60) {
            !watcher.isRunning || jsonEvents(watcher.stdout).contains { $0["event"] as? String == "summary" }
        }
        #expect(ready && watcher.isRunning, "the watcher did not start: \(watcher.stdout) \(watcher.stderr)",
                sourceLocation: sourceLocation)
    }
    return watcher
}

/// The watcher's `{"event":"watch"}` notices with `state`.
func watchNotices(_ watcher: ChildProcess, _ state: String) -> [[String: Any]] {
    jsonEvents(watcher.stdout).filter { $0["event"] as? String == "watch" && $0["state"] as? String == state }
}

@Suite("sync --watch end to end: a real watcher, a real server, other recipes processes", .serialized)
struct WatchEndToEndTests {
    @Test("an edit from another process is uploaded, a write on another home is applied here; SIGTERM stops it (exit 0)")
    func editsUpAndChangesDown() throws {
        let here = Client()
        let server = try here.startServer()
        let watcher = try startWatcher(here)
        try here.edit(["new \"Tomato soup\""])
        #expect(waitUntil(timeout: 60) { (try? server.storedRecipes().map(\.name)) == ["Tomato soup"] },
                "the edit did not reach the server: \(watcher.stdout) \(watcher.stderr)")
        #expect(!watchNotices(watcher, "sync").filter { $0["reason"] as? String == "edit" }.isEmpty)

        let there = Client(serverURL: server.url)
        #expect(try there.run(["sync"]).status == 0)
        try there.edit(["title 1 \"Tomato stew\"", "ingredient add 1 \"4 tomatoes\""])
        #expect(try there.run(["sync"]).status == 0)
        #expect(waitUntil(timeout: 60) { (try? here.rows().first?.title) == "Tomato stew" },
                "the other home's write was not applied here: \(watcher.stdout) \(watcher.stderr)")
        #expect(!watchNotices(watcher, "sync").filter { $0["reason"] as? String == "server" }.isEmpty)

        watcher.send(SIGTERM)
        let ended = watcher.result(timeout: 60)
        #expect(ended.status == 0, "\(ended)")
        #expect(!watchNotices(watcher, "stopped").isEmpty)
        #expect(ended.stderr.isEmpty, "\(ended)")
        #expect(try here.rows().allSatisfy { $0.leaseOwner == nil && $0.state == "synced" })
    }

    @Test("a second watcher of the same home exits at once naming the running one; Ctrl-C (SIGINT) stops the first")
    func secondWatcherRefused() throws {
        let here = Client()
        let server = try here.startServer()
        let first = try startWatcher(here)
        let second = try here.run(["sync", "--watch", "--json"], timeout: 60)
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr == """
            recipes: another `recipes sync --watch` (pid \(first.pid)) is already watching \(here.homePath); it syncs \
            this home, so leave it running, or stop it first (`kill \(first.pid)`)

            """, "\(second)")
        #expect(second.stdout.isEmpty)
        #expect(first.isRunning)
        first.send(SIGINT)
        #expect(first.result(timeout: 60).status == 0)
        // Once it is gone, the home can be watched again.
        let third = try startWatcher(here)
        third.send(SIGTERM)
        #expect(third.result(timeout: 60).status == 0)
        withExtendedLifetime(server) {}
    }

    @Test("SIGTERM during a transfer: exit 0, leases released, the transfer aborted; the next run finishes the work")
    func terminateDuringTransfer() throws {
        let here = Client()
        let server = try here.startServer(faults: ["PUT /v1/images/*: stall first=1"])
        try here.edit(["new \"Bread\"", "image set 1 \(here.image("bread.png", size: 256 * 1024, seed: 3))"])
        let watcher = try startWatcher(here, waitForFirstPass: false)  // its first pass uploads the recipe
        #expect(waitUntil(timeout: 60) { (try? here.rows().first?.leaseOwner)?.hasPrefix("\(watcher.pid):") == true },
                "the watcher never claimed the recipe: \(watcher.stdout) \(watcher.stderr)")
        // The server stalls the image's upload once its body is in: wait until the whole body has been sent.
        #expect(waitUntil(timeout: 60) {
            jsonEvents(watcher.stdout).contains { event in
                event["event"] as? String == "progress" && event["step"] as? String == "image"
                    && (event["bytes"] as? NSNumber) == (event["total"] as? NSNumber)
            }
        }, "\(watcher.stdout)")
        watcher.send(SIGTERM)
        let ended = watcher.result(timeout: 60)
        #expect(ended.status == 0, "\(ended)")
        let row = try #require(try here.rows().first)
        #expect(row.leaseOwner == nil && row.state != "synced", "\(row)")
        #expect(try server.storedRecipes().isEmpty)
        let next = try here.run(["sync"])
        #expect(next.status == 0, "\(next)")
        #expect(try server.storedRecipes().map(\.name) == ["Bread"])
    }

    @Test("SIGHUP re-reads the configuration: the next edit goes to the server it names now")
    func hangUpReloads() throws {
        let here = Client()
        let first = try here.startServer(log: "first.log")
        let other = Client()
        let second = try other.startServer(log: "second.log")
        here.serverURL = nil  // from the configuration file only: the environment would win over it
        #expect(try here.run(["config", "set", "server.url", first.url]).status == 0)
        let watcher = try startWatcher(here)
        try here.edit(["new \"Soup\""])
        #expect(waitUntil(timeout: 60) { (try? first.storedRecipes().count) == 1 }, "\(watcher.stdout) \(watcher.stderr)")
        #expect(try here.run(["config", "set", "server.url", second.url]).status == 0)
        watcher.send(SIGHUP)
        #expect(waitUntil(timeout: 60) { !watchNotices(watcher, "reloaded").isEmpty }, "\(watcher.stdout)")
        try here.edit(["new \"Bread\""])
        #expect(waitUntil(timeout: 60) { Set((try? second.storedRecipes().map(\.name)) ?? []) == ["Soup", "Bread"] },
                "\(watcher.stdout) \(watcher.stderr)")
        #expect(try first.storedRecipes().map(\.name) == ["Soup"])
        watcher.send(SIGTERM)
        #expect(watcher.result(timeout: 60).status == 0)
    }

    @Test("a retry that comes due is taken by the timer: a 503 with Retry-After, then the upload, with no edit between")
    func retryTimer() throws {
        let here = Client()
        let server = try here.startServer(faults: ["PUT /v1/recipes/*: status=503 retry-after=2 first=1"])
        let watcher = try startWatcher(here, ["--json", "--max-wait", "0"])
        try here.edit(["new \"Soup\""])
        #expect(waitUntil(timeout: 60) { (try? server.storedRecipes().count) == 1 }, "\(watcher.stdout) \(watcher.stderr)")
        #expect(!watchNotices(watcher, "sync").filter { $0["reason"] as? String == "retry" }.isEmpty, "\(watcher.stdout)")
        watcher.send(SIGTERM)
        #expect(watcher.result(timeout: 60).status == 0)
    }

    @Test("without --json or --plain it logs to logs/sync.log and says nothing on stdout or stderr")
    func logsLikeBackground() throws {
        let here = Client()
        let server = try here.startServer()
        let watcher = try startWatcher(here, [])
        try here.edit(["new \"Soup\""])
        #expect(waitUntil(timeout: 60) { (try? server.storedRecipes().count) == 1 })
        let log = here.homeURL.appendingPathComponent("logs/sync.log").path
        #expect(waitUntil(timeout: 60) { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("#1 Soup: done") == true })
        watcher.send(SIGTERM)
        let ended = watcher.result(timeout: 60)
        #expect(ended.status == 0 && ended.stdout.isEmpty && ended.stderr.isEmpty, "\(ended)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("] watch: watching \(here.homePath) (pid \(watcher.pid))"))
        #expect(text.contains("] watch: stopped"))
    }

    @Test("on a terminal it says once where its events go and how to stop it; Ctrl-C there stops it (exit 0)")
    func onATerminal() throws {
        let here = Client()
        let server = try here.startServer()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pty_watch.py").path
        let session = try here.runPython(script)
        let lines = session.stdout.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains { line in
            line.hasPrefix("recipes: watching \(here.homePath) (pid ")
                && line.hasSuffix("); events go to \(here.homePath)/logs/sync.log; Ctrl-C stops")
        }, "\(session.stdout)")
        #expect(lines.last == "EXIT 0", "\(session.stdout)")
        withExtendedLifetime(server) {}
    }

    @Test("with --plain, one line per event on stdout, the watcher's own prefixed `watch:`")
    func plainLines() throws {
        let here = Client()
        let server = try here.startServer()
        let watcher = try startWatcher(here, ["--plain"])
        #expect(waitUntil(timeout: 60) { watcher.stdout.contains("watch: watching") })
        try here.edit(["new \"Soup\""])
        #expect(waitUntil(timeout: 60) { watcher.stdout.contains("#1 Soup: done") }, "\(watcher.stdout)")
        watcher.send(SIGTERM)
        let ended = watcher.result(timeout: 60)
        #expect(ended.status == 0 && ended.stdout.hasSuffix("watch: stopped\n"), "\(ended)")
        withExtendedLifetime(server) {}
    }

    @Test("no server configured, or options that make no sense with --watch: one clear line, no watcher", arguments: [
        (["sync", "--watch"], 1, "no server to sync with; set one with `recipes config set server.url URL`"),
        (["sync", "--watch", "3"], 64, "--watch syncs every recipe that needs it; it takes no ids"),
        (["sync", "--watch", "--push-only"], 64, "--watch syncs both ways"),
        (["sync", "--watch", "--wait-for-network", "5"], 64, "--watch waits for the network by itself"),
        (["sync", "--plain"], 64, "--plain goes with --watch"),
        (["sync", "--watch", "--plain", "--json"], 64, "--plain and --json exclude each other"),
    ])
    func refusedStarts(arguments: [String], status: Int32, message: String) throws {
        let here = Client()
        let result = try here.run(arguments, timeout: 60)
        #expect(result.status == status, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: here.homeURL.appendingPathComponent("watch.lock").path))
    }
}
