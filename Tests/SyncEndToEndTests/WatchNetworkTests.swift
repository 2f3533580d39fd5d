import Foundation
import RecipesTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A private network namespace joined to this one by a veth pair on a subnet of its own: the server listens on this
/// side's address, a watcher runs inside on the other. Removed (namespace, pair) when released.
final class RoutedNamespace {
    let name: String
    let outside: String
    let inside: String
    /// This side's address (the server's) and the namespace side's, with the prefix length.
    let serverAddress: String
    let clientAddress: String

    /// Whether this machine lets the tests make one (root, namespaces and veth allowed), found once by making one.
    static let canCreate: Bool = RoutedNamespace() != nil

    init?() {
        let tag = String(format: "%05d%03d", getpid() % 100_000, Int.random(in: 0..<1000))
        name = "recipes-route-\(tag)"
        outside = "rwo\(tag)"
        inside = "rwi\(tag)"
        let subnet = "10.\(100 + Int.random(in: 0..<100)).\(Int.random(in: 0..<250))"
        serverAddress = "\(subnet).1"
        clientAddress = "\(subnet).2/24"
        let steps: [[String]] = [
            ["netns", "add", name],
            ["link", "add", outside, "type", "veth", "peer", "name", inside],
            ["link", "set", inside, "netns", name],
            ["addr", "add", serverAddress + "/24", "dev", outside],
            ["link", "set", outside, "up"],
            ["-n", name, "link", "set", "lo", "up"],
            ["-n", name, "link", "set", inside, "up"],
            ["-n", name, "addr", "add", clientAddress, "dev", inside],
        ]
        for step in steps where Self.ip(step) != 0 {
            remove()
            return nil
        }
    }

    deinit { remove() }

    private func remove() {
        _ = Self.ip(["link", "del", outside])
        _ = Self.ip(["netns", "delete", name])
    }

    /// Takes the namespace's address (and with it its only route to the server) away, or gives it back.
    func route(_ present: Bool) -> Int32 {
        Self.ip(["-n", name, "addr", present ? "add" : "del", clientAddress, "dev", inside])
    }

    /// Runs `ip arguments`; its exit status.
    static func ip(_ arguments: [String]) -> Int32 {
        guard let path = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else { return 127 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return 127 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite("sync --watch and the network: the route to the server taken away and given back", .serialized)
struct WatchNetworkTests {
    @Test("no route: offline, the edit waits with no attempt burned; the route back: the watcher syncs by itself, having probed only after events",
          .enabled(if: RoutedNamespace.canCreate,
                   "making a network namespace with a veth pair needs root and a kernel that allows it (`ip netns add` or `ip link add … type veth` failed)"))
    func routeBack() throws {
        let network = try #require(RoutedNamespace())
        let here = Client()
        let server = try ServerProcess(
            data: here.folder.appendingPathComponent("server"), requestLog: here.folder.appendingPathComponent("requests.log"),
            host: network.serverAddress)
        here.serverURL = server.url
        // The watcher runs inside the namespace; every other command from here (the home is one folder for both).
        let watcher = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["ip", "netns", "exec", network.name, builtProduct("recipes").path, "sync", "--watch", "--json"],
            environment: here.environment.merging(["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]) { $1 })
        defer { watcher.killNow() }
        #expect(waitUntil(timeout: 60) { jsonEvents(watcher.stdout).contains { $0["event"] as? String == "summary" } },
                "\(watcher.stdout) \(watcher.stderr)")

        #expect(network.route(false) == 0)
        #expect(waitUntil(timeout: 60) { !watchNotices(watcher, "offline").isEmpty }, "\(watcher.stdout)")
        try here.edit(["new \"Soup\""])
        #expect(waitUntil(timeout: 60) {
            jsonEvents(watcher.stdout).contains { $0["event"] as? String == "offline" && $0["title"] as? String == "Soup" }
        }, "\(watcher.stdout)")
        let waiting = try #require(try here.rows().first)
        #expect(waiting.attempts == 0 && waiting.leaseOwner == nil, "\(waiting)")
        let passesWhileOffline = watchNotices(watcher, "sync").count
        #expect(try server.storedRecipes().isEmpty)
        // Offline with the edit waiting: a watcher that polled the network every second (as `--wait-for-network` does)
        // would probe 6 times over these seconds; this one asks again after 2 s, 2 s, 4 s… (a server that restarts is
        // found without a network change), and not at all with nothing to send.
        let probesWhenOffline = try #require(watchNotices(watcher, "offline").first?["probes"] as? Int, "\(watcher.stdout)")
        Thread.sleep(forTimeInterval: 6)

        #expect(network.route(true) == 0)
        #expect(waitUntil(timeout: 60) { (try? server.storedRecipes().map(\.name)) == ["Soup"] },
                "\(watcher.stdout) \(watcher.stderr)")
        let after = watchNotices(watcher, "sync").dropFirst(passesWhileOffline)
        #expect(after.first?["reason"] as? String == "network", "\(watcher.stdout)")
        // The pass ends after the upload (its pull of what it wrote), and with it the watcher is online again.
        #expect(waitUntil(timeout: 60) { !watchNotices(watcher, "online").isEmpty }, "\(watcher.stdout)")
        // Between the two notices: the probe of the edit's pass (none when the offline answer was still fresh), the
        // back-off's probes while the edit waited (3 in the first 8 s, then fewer), the question after the route came
        // back, and at most one more by the pass it started.
        let probesWhenOnline = try #require(watchNotices(watcher, "online").first?["probes"] as? Int, "\(watcher.stdout)")
        #expect((1...8).contains(probesWhenOnline - probesWhenOffline),
                "\(probesWhenOffline) probes when offline, \(probesWhenOnline) when online: \(watcher.stdout)")
        watcher.send(SIGTERM)
        #expect(watcher.result(timeout: 60).status == 0)
    }
}
