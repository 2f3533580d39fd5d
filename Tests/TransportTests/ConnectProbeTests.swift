import HTTPTestSupport
import Locking
import Testing
import Transport

@Suite("ConnectProbe: can a TCP connection be opened?")
struct ConnectProbeTests {
    @Test("The live probe sees a listening loopback port as reachable")
    func listeningIsReachable() async throws {
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        #expect(await ConnectProbe.live().isReachable(host: "127.0.0.1", port: server.port))
    }

    @Test("The live probe sees a closed port and an unresolvable host as unreachable")
    func closedIsUnreachable() async throws {
        let port = try TestSupport.closedPort()
        // No wall-clock bound here: under the parallel test load the resumption of this task, not the probe,
        // decides how long it takes. The probe's own deadline covers name resolution (see `live`).
        #expect(await !ConnectProbe.live(timeout: .seconds(1)).isReachable(host: "127.0.0.1", port: port))
        #expect(await !ConnectProbe.live(timeout: .seconds(1)).isReachable(host: "no-such-host.invalid", port: 80))
    }

    @Test("A URL's host and port: the explicit port, else the scheme's default")
    func hostAndPort() throws {
        let explicit = try #require(ConnectProbe.hostAndPort(of: "http://127.0.0.1:8080/v1"))
        #expect(explicit == ("127.0.0.1", 8080))
        let https = try #require(ConnectProbe.hostAndPort(of: "https://example.org"))
        #expect(https == ("example.org", 443))
        let ipv6 = try #require(ConnectProbe.hostAndPort(of: "http://[::1]/x"))
        #expect(ipv6 == ("::1", 80))
        #expect(ConnectProbe.hostAndPort(of: "ftp://example.org") == nil)
        #expect(ConnectProbe.hostAndPort(of: "nonsense") == nil)
    }

    @Test("An enormous timeout neither traps nor changes the answer")
    func hugeTimeout() async throws {
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        #expect(await ConnectProbe.live(timeout: .seconds(Int64.max)).isReachable(host: "127.0.0.1", port: server.port))
    }

    struct ProxyCase: Sendable, CustomTestStringConvertible {
        var url: String
        var environment: [String: String]
        var host: String
        var port: Int
        var testDescription: String { "\(url) with \(environment.sorted { $0.key < $1.key }) → \(host):\(port)" }
    }

    static let proxyCases: [ProxyCase] = [
        ProxyCase(url: "https://api.example.org/v1", environment: [:], host: "api.example.org", port: 443),
        ProxyCase(url: "https://api.example.org/v1", environment: ["https_proxy": "http://proxy.lan:3128"], host: "proxy.lan", port: 3128),
        ProxyCase(url: "https://api.example.org/v1", environment: ["HTTPS_PROXY": "proxy.lan:8080"], host: "proxy.lan", port: 8080),
        ProxyCase(url: "https://api.example.org/v1", environment: ["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2"], host: "a", port: 1),
        ProxyCase(url: "https://api.example.org/v1", environment: ["http_proxy": "http://p:1"], host: "api.example.org", port: 443),
        ProxyCase(url: "http://api.example.org/v1", environment: ["http_proxy": "http://user:pw@p.lan:3128/"], host: "p.lan", port: 3128),
        ProxyCase(url: "http://api.example.org/v1", environment: ["HTTP_PROXY": "http://p:1"], host: "api.example.org", port: 80),
        ProxyCase(url: "http://api.example.org/v1", environment: ["https_proxy": "http://p:1"], host: "api.example.org", port: 80),
        ProxyCase(url: "http://api.example.org/v1", environment: ["all_proxy": "socks5://s.lan"], host: "s.lan", port: 1080),
        ProxyCase(url: "https://api.example.org/v1", environment: ["ALL_PROXY": "https://s.lan"], host: "s.lan", port: 443),
        ProxyCase(url: "https://api.example.org/v1", environment: ["https_proxy": "http://h:1", "all_proxy": "http://a:2"], host: "h", port: 1),
        ProxyCase(url: "http://api.example.org/v1", environment: ["http_proxy": "", "all_proxy": "http://a:2"], host: "a", port: 2),
        ProxyCase(url: "http://[::1]:8080/v1", environment: ["http_proxy": "http://[fd00::1]:3128"], host: "fd00::1", port: 3128),
        // no_proxy: exact host, domain suffix (with or without a leading dot), `*`, upper case; never a mere string suffix.
        ProxyCase(url: "https://api.example.org/v1", environment: ["https_proxy": "http://p:1", "no_proxy": "localhost, api.example.org"],
                  host: "api.example.org", port: 443),
        ProxyCase(url: "https://api.example.org/v1", environment: ["https_proxy": "http://p:1", "no_proxy": "example.org"],
                  host: "api.example.org", port: 443),
        ProxyCase(url: "https://api.example.org/v1", environment: ["https_proxy": "http://p:1", "NO_PROXY": ".EXAMPLE.org"],
                  host: "api.example.org", port: 443),
        ProxyCase(url: "https://api.example.org/v1", environment: ["all_proxy": "http://p:1", "no_proxy": "*"],
                  host: "api.example.org", port: 443),
        ProxyCase(url: "https://api.example.org/v1", environment: ["https_proxy": "http://p:1", "no_proxy": "ample.org,other.org"],
                  host: "p", port: 1),
        ProxyCase(url: "http://127.0.0.1:8080/v1", environment: ["http_proxy": "http://p:1", "no_proxy": "127.0.0.1"],
                  host: "127.0.0.1", port: 8080),
    ]

    @Test("The probe goes where libcurl would connect: the applicable proxy unless no_proxy exempts the host",
          arguments: proxyCases)
    func connectTarget(case proxyCase: ProxyCase) throws {
        let target = try #require(ConnectProbe.connectTarget(of: proxyCase.url, environment: proxyCase.environment))
        #expect(target.host == proxyCase.host)
        #expect(target.port == proxyCase.port)
    }

    @Test("A constant probe answers what it was given, for tests of the reachability condition")
    func constant() async {
        #expect(await ConnectProbe.constant(true).isReachable(host: "anything", port: 1))
        #expect(await !ConnectProbe.constant(false).isReachable(host: "anything", port: 1))
    }
}
