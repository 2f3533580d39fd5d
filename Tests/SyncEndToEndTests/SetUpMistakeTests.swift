import Foundation
import RecipesTestSupport
import Testing

/// A set-up mistake (server.url naming something that is not a recipes server, or the wrong protocol) is said in
/// words, exits 1 and is said by cron's `--background` too; an unreachable host is "offline", tried again later
/// (exit 75). Real binaries, a real recipes-server and a real web server of something else.
@Suite("set-up mistakes are told apart from being offline", .serialized)
struct SetUpMistakeTests {
    /// A plain web server that is not a recipes server (python3's http.server on a free port), stopped when released.
    final class OtherWebServer {
        let process: ChildProcess
        let port: Int

        init(in folder: URL) throws {
            let started = try ChildProcess(
                URL(fileURLWithPath: "/usr/bin/python3"), ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                                                         "--directory", folder.path],
                environment: ["PATH": "/usr/bin:/bin"])
            process = started
            var found: Int?
            _ = waitUntil(timeout: 60) {
                found = started.stdout.firstMatch(of: #/port (\d+)/#).flatMap { Int($0.output.1) }
                return found != nil
            }
            guard let found else { throw CocoaError(.fileReadUnknown, userInfo: ["why": "http.server did not start: \(started.stderr)"]) }
            port = found
        }

        var url: String { "http://127.0.0.1:\(port)" }
        deinit { process.killNow() }
    }

    @Test("a path where no recipes server is: exit 1 in words, also from cron; nothing sent, the recipe still pending")
    func wrongPath() throws {
        let home = Client()
        let server = try home.startServer()
        defer { server.stop() }
        try home.edit(["new Soup"])
        home.serverURL = server.url + "/recipes"
        let run = try home.run(["sync"])
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.hasSuffix("sync: stopped: \(server.url)/recipes is not a recipes server: it answers HTTP 404 to the recipes requests (/v1/…); check the path in server.url (recipes-server's own URL has none: \(server.url))\n"), "\(run.stdout)")
        let cron = try home.run(["sync", "--background"])
        #expect(cron.status == 1 && cron.stderr.contains("is not a recipes server"), "said to cron's mail: \(cron)")
        let pushOnly = try home.run(["sync", "--push-only"])
        #expect(pushOnly.status == 1 && pushOnly.stdout.contains("is not a recipes server"), "\(pushOnly)")
        #expect(try home.status(of: 1)?["state"] as? String == "pending", "not failed: the recipe is not at fault")
        #expect(server.requests().allSatisfy { $0.status == 404 }, "nothing reached a route of the contract")
    }

    @Test("https:// to a server that speaks plain HTTP: said in words, exit 1 (not OpenSSL's `wrong version number`, not 75)")
    func tlsToPlainHTTP() throws {
        let home = Client()
        let server = try home.startServer()
        defer { server.stop() }
        try home.edit(["new Soup"])
        let https = server.url.replacing("http://", with: "https://")
        home.serverURL = https
        let run = try home.run(["sync"])
        #expect(run.status == 1, "\(run)")
        let port = server.url.split(separator: ":").last.map(String.init) ?? ""
        #expect(run.stdout.contains("127.0.0.1:\(port) answers in plain HTTP, not TLS: server.url says https://; if the server speaks plain HTTP (recipes-server does), set server.url to \(server.url)"), "\(run.stdout)")
        #expect(!run.stdout.contains("wrong version number") && !run.stdout.contains("retry"), "\(run.stdout)")
        let cron = try home.run(["sync", "--background"])
        #expect(cron.status == 1 && cron.stderr.contains("answers in plain HTTP"), "\(cron)")
        #expect(try home.status(of: 1)?["state"] as? String == "pending")
    }

    @Test("a port nothing listens on: offline (75), said as such on a terminal's pipe, quiet in cron")
    func nothingListening() throws {
        let home = Client(serverURL: "http://127.0.0.1:\(try closedPort())")
        try home.edit(["new Soup", "new Bread"])
        let run = try home.run(["sync"])
        #expect(run.status == 75, "\(run)")
        #expect(run.stdout.contains("offline: nothing answers on 127.0.0.1:"), "\(run.stdout)")
        #expect(run.stdout.contains("(connection refused): is the server running, and is the port in server.url the one it listens on?; 2 recipes wait for it"), "\(run.stdout)")
        let cron = try home.run(["sync", "--background"])
        #expect(cron.status == 75 && cron.stderr.isEmpty, "offline is routine for cron: \(cron)")
    }

    @Test("a web server that is not a recipes server: exit 1, also in cron's idle run that only asks for changes")
    func anotherWebServer() throws {
        let home = Client()
        let server = try home.startServer()
        defer { server.stop() }
        try home.edit(["new Soup"])
        #expect(try home.run(["sync"]).status == 0, "synced with the recipes server: nothing left to push")
        let other = try OtherWebServer(in: home.folder)
        home.serverURL = other.url
        let cron = try home.run(["sync", "--background"])
        #expect(cron.status == 1, "\(cron)")
        #expect(cron.stderr == "recipes: sync: \(other.url) is not a recipes server: it answers HTTP 404 to the recipes requests (/v1/…); check that server.url is the address the recipes server prints (\"listening on …\")\n", "\(cron.stderr)")
        let run = try home.run(["sync"])
        #expect(run.status == 1 && run.stdout.contains("is not a recipes server"), "\(run)")
    }

    @Test("config set refuses what can be told at once: no scheme, an empty port, /v1; the file keeps its value")
    func checkedWhenSet() throws {
        let home = Client()
        #expect(try home.run(["config", "set", "server.url", "http://127.0.0.1:8080"]).status == 0)
        for (url, words) in [
            ("http://127.0.0.1:", "it ends its host with \":\" but gives no port"),
            ("http://127.0.0.1:8080/v1", "it holds /v1, which recipes adds to the base URL itself: set the server's base URL, http://127.0.0.1:8080"),
            ("127.0.0.1:8080", "it has no scheme: write http:// or https:// in front (http://127.0.0.1:8080)"),
        ] {
            let run = try home.run(["config", "set", "server.url", url])
            #expect(run.status == 1 && run.stderr.contains(words), "\(url): \(run)")
        }
        var environment = home.environment
        environment["RECIPES_SERVER_URL"] = nil
        let shown = try ChildProcess(builtProduct("recipes"), ["config", "get", "server.url"], environment: environment).result()
        #expect(shown.stdout == "http://127.0.0.1:8080\n", "\(shown)")
    }
}
