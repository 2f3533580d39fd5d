import Testing
import Transport

@Suite("ReachabilityProbe: can a TCP connection be opened?")
struct ReachabilityProbeTests {
    @Test("The live probe sees a listening loopback port as reachable")
    func listeningIsReachable() async throws {
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        #expect(await ReachabilityProbe.live().isReachable(host: "127.0.0.1", port: server.port))
        #expect(await ReachabilityProbe.live().isReachable(url: server.baseURL + "/v1"))
    }

    @Test("The live probe sees a closed port and an unresolvable host as unreachable")
    func closedIsUnreachable() async throws {
        let port = try TestSupport.closedPort()
        // No wall-clock bound here: under the parallel test load the resumption of this task, not the probe,
        // decides how long it takes. The probe's own deadline covers name resolution (see `live`).
        #expect(await !ReachabilityProbe.live(timeout: .seconds(1)).isReachable(host: "127.0.0.1", port: port))
        #expect(await !ReachabilityProbe.live(timeout: .seconds(1)).isReachable(host: "no-such-host.invalid", port: 80))
    }

    @Test("A URL's host and port: the explicit port, else the scheme's default")
    func hostAndPort() {
        #expect(ReachabilityProbe.hostAndPort(of: "http://127.0.0.1:8080/v1")! == ("127.0.0.1", 8080))
        #expect(ReachabilityProbe.hostAndPort(of: "https://example.org")! == ("example.org", 443))
        #expect(ReachabilityProbe.hostAndPort(of: "http://[::1]/x")! == ("::1", 80))
        #expect(ReachabilityProbe.hostAndPort(of: "ftp://example.org") == nil)
        #expect(ReachabilityProbe.hostAndPort(of: "nonsense") == nil)
    }

    @Test("A constant probe answers what it was given, for tests of the reachability condition")
    func constant() async {
        #expect(await ReachabilityProbe.constant(true).isReachable(host: "anything", port: 1))
        #expect(await !ReachabilityProbe.constant(false).isReachable(host: "anything", port: 1))
    }
}
