import Foundation
import HTTPTestSupport
import RecipesTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A server only a forwarding proxy can reach: its URL names a host that does not resolve here
/// (`recipes.proxied.test`, a reserved name), which the proxy maps to the server's loopback port.
final class ProxiedServer {
    static let host = "recipes.proxied.test"
    let server: ServerProcess
    let proxy: LoopbackForwardProxy

    init(_ client: Client) throws {
        server = try client.startServer()
        proxy = try LoopbackForwardProxy(hosts: [Self.host: server.port])
        client.serverURL = url
        client.extraEnvironment["http_proxy"] = proxy.url
    }

    /// The server's URL as the clients know it.
    var url: String { "http://\(Self.host):\(server.port)" }

    /// Points `client` at the server through the proxy.
    func use(_ client: Client) {
        client.serverURL = url
        client.extraEnvironment["http_proxy"] = proxy.url
    }

    /// The requests the proxy forwarded to the server, as `METHOD path`.
    var forwarded: [String] {
        proxy.requests.filter { $0.host == Self.host }.map { "\($0.method) \($0.path)" }
    }

    deinit { proxy.stop() }
}

@Suite("Behind an HTTP proxy: reachability asks where libcurl connects, so sync, a restore and the watcher work", .serialized)
struct ProxyEndToEndTests {
    @Test("the direct route does not exist: without the proxy (or with the host in no_proxy) the run is offline, exit 75")
    func directRouteIsUnreachable() throws {
        let here = Client()
        let proxied = try ProxiedServer(here)
        try here.edit(["new \"Soup\""])
        here.extraEnvironment = [:]
        let direct = try here.run(["sync"])
        #expect(direct.status == 75, "\(direct)")
        #expect(direct.stderr.isEmpty && direct.stdout.contains("cannot reach \(ProxiedServer.host):"), "\(direct)")
        proxied.use(here)
        here.extraEnvironment["no_proxy"] = ".proxied.test"
        let exempt = try here.run(["sync"])
        #expect(exempt.status == 75, "\(exempt)")
        #expect(proxied.proxy.connections == 0, "no_proxy: neither the probe nor libcurl went to the proxy")
        #expect(try proxied.server.storedRecipes().isEmpty)
    }

    @Test("recipes sync uploads through the proxy, and a fresh home restores everything through it")
    func syncAndRestore() throws {
        let here = Client()
        let proxied = try ProxiedServer(here)
        try here.createRecipes(2, imageSize: 20_000)
        let sync = try here.run(["sync"])
        #expect(sync.status == 0, "\(sync)")
        #expect(try proxied.server.storedRecipes().map(\.name).sorted() == ["Recipe 1", "Recipe 2"])
        #expect(proxied.server.storedImageFiles().count == 2)
        let sent = proxied.forwarded
        #expect(sent.filter { $0.hasPrefix("PUT /v1/recipes/") }.count == 2, "\(sent)")
        #expect(sent.filter { $0.hasPrefix("PUT /v1/images/") }.count == 2, "\(sent)")

        let there = Client()
        proxied.use(there)
        let before = proxied.forwarded.count
        let restore = try there.run(["sync"])
        #expect(restore.status == 0, "\(restore)")
        let rows = try there.rows()
        #expect(rows.map(\.title).sorted() == ["Recipe 1", "Recipe 2"])
        #expect(rows.allSatisfy { $0.state == "synced" && $0.imageSHA256 != nil }, "\(rows)")
        let fetched = proxied.forwarded.dropFirst(before)
        #expect(fetched.contains { $0.hasPrefix("GET /v1/changes") }, "\(fetched)")
        #expect(fetched.filter { $0.hasPrefix("GET /v1/images/") }.count == 2, "\(fetched)")

        // Cron's idle run: nothing to push, so the feed check alone asks the server (through the proxy) whether
        // anything is new.
        let checked = proxied.forwarded.count
        let idle = try there.run(["sync", "--background"])
        #expect(idle.status == 0, "\(idle)")
        #expect(proxied.forwarded.dropFirst(checked).map { $0.split(separator: "?").first ?? "" } == ["GET /v1/changes"],
                "\(proxied.forwarded.dropFirst(checked))")
    }

    @Test("recipes sync --watch uploads an edit and applies another home's write, its long poll held through the proxy")
    func watchThroughProxy() throws {
        let here = Client()
        let proxied = try ProxiedServer(here)
        let watcher = try startWatcher(here)
        defer { watcher.killNow() }
        #expect(watchNotices(watcher, "offline").isEmpty, "\(watcher.stdout)")
        try here.edit(["new \"Tomato soup\""])
        #expect(waitUntil(timeout: 60) { (try? proxied.server.storedRecipes().map(\.name)) == ["Tomato soup"] },
                "the edit did not reach the server: \(watcher.stdout) \(watcher.stderr)")

        let there = Client()
        proxied.use(there)
        #expect(try there.run(["sync"]).status == 0)
        try there.edit(["title 1 \"Tomato stew\""])
        #expect(try there.run(["sync"]).status == 0)
        #expect(waitUntil(timeout: 60) { (try? here.rows().first?.title) == "Tomato stew" },
                "the other home's write was not applied here: \(watcher.stdout) \(watcher.stderr)")
        #expect(!watchNotices(watcher, "sync").filter { $0["reason"] as? String == "server" }.isEmpty, "\(watcher.stdout)")
        #expect(proxied.forwarded.contains { $0.hasPrefix("GET /v1/changes") && $0.contains("wait=") },
                "the long poll went through the proxy: \(proxied.forwarded)")
        #expect(watchNotices(watcher, "offline").isEmpty, "\(watcher.stdout)")

        watcher.send(SIGTERM)
        #expect(watcher.result(timeout: 60).status == 0)
    }
}
