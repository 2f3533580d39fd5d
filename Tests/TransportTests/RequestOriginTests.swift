import Foundation
import HTTPTestSupport
import Testing
@testable import Transport

@Suite("The bearer token goes to its own origin only")
struct RequestOriginTests {
    @Test("origins compared by scheme, host (any case) and port (80 and 443 by default); doubtful URLs have none")
    func origins() {
        let same: [(String, String)] = [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/images/abc"),
            ("https://Recipes.Example.org", "https://recipes.example.org:443/v1/changes?since=1"),
            ("http://example.org/base", "http://example.org:80/v1/health#x"),
            ("http://[::1]:9000", "http://[::1]:9000/v1/images/abc"),
        ]
        for (a, b) in same { #expect(RequestOrigin(url: a) == RequestOrigin(url: b), "\(a) \(b)") }
        let other: [(String, String)] = [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8081/v1/images/abc"),
            ("http://example.org", "https://example.org/"),
            ("http://example.org", "http://example.org.evil.com/"),
            ("http://127.0.0.1:8080", "http://localhost:8080/"),
        ]
        for (a, b) in other { #expect(RequestOrigin(url: a) != RequestOrigin(url: b), "\(a) \(b)") }
        for doubtful in ["http://127.0.0.1:8080@evil.com/", "http://evil.com\\@127.0.0.1:8080/", "http://exa mple.org/",
                         "ftp://example.org/", "file:///etc/passwd", "http:///v1", "//example.org/"] {
            #expect(RequestOrigin(url: doubtful) == nil, "\(doubtful)")
        }
    }

    @Test("a request elsewhere carries no token, and its 401 halts nothing; the token's own server gets it")
    func tokenStaysHome() async throws {
        let home = try LoopbackHTTPServer(status: 200, body: "{}")
        defer { home.stop() }
        let elsewhere = try LoopbackHTTPServer(status: 401, body: "{}")
        defer { elsewhere.stop() }
        var configuration = HTTPClientConfiguration(
            userAgent: "recipes/test", bearerToken: "tok-home-only", tokenOrigin: home.baseURL, maxConcurrentTransfers: 1)
        configuration.haltingStatuses = [401, 403]
        let client = try HTTPClient(configuration: configuration)
        #expect(try await client.send(HTTPRequest(method: .get, url: elsewhere.baseURL + "/v1/images/a")).status == 401)
        #expect(try await client.send(HTTPRequest(method: .get, url: home.baseURL + "/v1/health")).status == 200)
        #expect(elsewhere.received.map { $0.head.headers["authorization"] } == [nil])
        #expect(home.received.map { $0.head.headers["authorization"] } == ["Bearer tok-home-only"])
        // Without an origin the token goes nowhere.
        let nowhere = try HTTPClient(configuration: HTTPClientConfiguration(bearerToken: "tok-nowhere"))
        _ = try await nowhere.send(HTTPRequest(method: .get, url: home.baseURL + "/v1/health"))
        #expect(home.received.last?.head.headers["authorization"] == nil)
    }
}
