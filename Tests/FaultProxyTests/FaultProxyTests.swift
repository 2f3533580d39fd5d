import Foundation
import HTTPTestSupport
import Testing
import Transport

@Suite("LoopbackFaultProxy: forwards HTTP/1.1 to an upstream, loses answers, resets and answers 503 by rule")
struct FaultProxyTests {
    static func client() throws -> HTTPClient {
        try HTTPClient(configuration: HTTPClientConfiguration(userAgent: "recipes/test", connectTimeout: .seconds(5)))
    }

    @Test("Forwarding: the upstream gets the method, path, headers and body; the client gets status, headers and body")
    func forwards() async throws {
        let upstream = try LoopbackHTTPServer { _ in
            .respond(status: 201, headers: ["Content-Type": "application/json", "X-Upstream": "yes"], body: Data(#""tomato-soup""#.utf8))
        }
        defer { upstream.stop() }
        let proxy = try LoopbackFaultProxy(upstreamPort: upstream.port)
        defer { proxy.stop() }
        let body = Data(#"{"name":"Tomato soup"}"#.utf8)
        let response = try await Self.client().send(HTTPRequest(
            method: .post, url: proxy.baseURL + "/api/recipes?x=1", headers: ["X-Client": "1"],
            body: .data(body, contentType: "application/json")))
        #expect(response.status == 201)
        #expect(response.body == Data(#""tomato-soup""#.utf8))
        #expect(response.header("x-upstream") == "yes")
        let received = try #require(upstream.received.first)
        #expect(received.head.method == "POST" && received.head.path == "/api/recipes?x=1")
        #expect(received.head.headers["x-client"] == "1")
        #expect(received.body == body)
        #expect(proxy.counters == LoopbackFaultProxy.Counters(requests: 1, forwarded: 1, relayed: 1))
    }

    @Test("Twenty requests on one client connection go over one upstream connection, each relayed")
    func keepsAlive() async throws {
        let upstream = try LoopbackHTTPServer(status: 200, body: "ok")
        defer { upstream.stop() }
        let proxy = try LoopbackFaultProxy(upstreamPort: upstream.port)
        defer { proxy.stop() }
        let client = try Self.client()
        for index in 0..<20 {
            let response = try await client.send(HTTPRequest(method: .get, url: proxy.baseURL + "/n/\(index)"))
            #expect(response.status == 200 && response.body == Data("ok".utf8))
        }
        #expect(upstream.connectionCount == 1)
        #expect(proxy.counters.relayed == 20)
    }

    @Test("A chunked answer and a HEAD answer are relayed whole")
    func chunkedAndHead() async throws {
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
        let upstream = try LoopbackHTTPServer { head in
            head.method == "HEAD" ? .respond(status: 200, headers: ["X-Size": "9"], body: Data("ignored".utf8)) : .raw(Data(chunked.utf8))
        }
        defer { upstream.stop() }
        let proxy = try LoopbackFaultProxy(upstreamPort: upstream.port)
        defer { proxy.stop() }
        let client = try Self.client()
        let head = try await client.send(HTTPRequest(method: .head, url: proxy.baseURL + "/h"))
        #expect(head.status == 200 && head.header("x-size") == "9")
        let response = try await client.send(HTTPRequest(method: .get, url: proxy.baseURL + "/c"))
        #expect(String(decoding: response.body, as: UTF8.self) == "hello world")
    }

    @Test("dropAnswer: the upstream got the request and answered; the client gets no answer at all")
    func dropsAnswer() async throws {
        let upstream = try LoopbackHTTPServer(status: 201, body: "created")
        defer { upstream.stop() }
        let proxy = try LoopbackFaultProxy(upstreamPort: upstream.port)
        defer { proxy.stop() }
        proxy.add(.dropAnswer)
        let error = await #expect(throws: TransportError.self) {
            _ = try await Self.client().send(HTTPRequest(method: .post, url: proxy.baseURL + "/x", body: .data(Data("b".utf8), contentType: "text/plain")))
        }
        #expect(error?.kind == .connectionLost)
        #expect(upstream.received.count == 1)
        #expect(proxy.counters == LoopbackFaultProxy.Counters(requests: 1, forwarded: 1, dropped: 1))
    }

    @Test("A dropped answer on a reused connection is sent again by libcurl itself, unasked: the upstream gets it twice")
    func libcurlResendsOnReusedConnection() async throws {
        let upstream = try LoopbackHTTPServer(status: 200, body: "ok")
        defer { upstream.stop() }
        let proxy = try LoopbackFaultProxy(upstreamPort: upstream.port)
        defer { proxy.stop() }
        let client = try Self.client()
        _ = try await client.send(HTTPRequest(method: .get, url: proxy.baseURL + "/warm"))
        proxy.add(.dropAnswer) { $0.method == "POST" }
        let response = try await client.send(HTTPRequest(method: .post, url: proxy.baseURL + "/create",
                                                         body: .data(Data("b".utf8), contentType: "text/plain")))
        #expect(response.status == 200)
        #expect(upstream.received.filter { $0.head.method == "POST" }.count == 2)
        #expect(proxy.log.map(\.fault) == [.forward, .dropAnswer, .forward])
    }

    @Test("resetAfterUpstream: the upstream got the request; the client's connection is reset")
    func resetsAfterUpstream() async throws {
        let upstream = try LoopbackHTTPServer(status: 200, body: "ok")
        defer { upstream.stop() }
        let proxy = try LoopbackFaultProxy(upstreamPort: upstream.port)
        defer { proxy.stop() }
        proxy.add(.resetAfterUpstream)
        let error = await #expect(throws: TransportError.self) {
            _ = try await Self.client().send(HTTPRequest(method: .put, url: proxy.baseURL + "/x", body: .data(Data("b".utf8), contentType: "text/plain")))
        }
        #expect(error?.kind == .connectionLost)
        #expect(upstream.received.count == 1)
        #expect(proxy.counters.resets == 1 && proxy.counters.dropped == 1)
    }

    @Test("resetBeforeUpstream: the request never reaches the upstream")
    func resetsBeforeUpstream() async throws {
        let upstream = try LoopbackHTTPServer(status: 200, body: "ok")
        defer { upstream.stop() }
        let proxy = try LoopbackFaultProxy(upstreamPort: upstream.port)
        defer { proxy.stop() }
        proxy.add(.resetBeforeUpstream)
        let error = await #expect(throws: TransportError.self) {
            _ = try await Self.client().send(HTTPRequest(method: .post, url: proxy.baseURL + "/x", body: .data(Data("b".utf8), contentType: "text/plain")))
        }
        #expect(error?.kind == .connectionLost)
        #expect(upstream.heads.isEmpty)
        #expect(proxy.counters == LoopbackFaultProxy.Counters(requests: 1, resets: 1))
    }

    @Test("unavailable: 503 with the Retry-After given, which the transport reads as a transient wait; nothing forwarded")
    func answersUnavailable() async throws {
        let upstream = try LoopbackHTTPServer(status: 200, body: "ok")
        defer { upstream.stop() }
        let proxy = try LoopbackFaultProxy(upstreamPort: upstream.port)
        defer { proxy.stop() }
        proxy.add(.unavailable(retryAfter: "7"))
        let client = try Self.client()
        let response = try await client.send(HTTPRequest(method: .get, url: proxy.baseURL + "/x"))
        #expect(response.status == 503 && response.header("retry-after") == "7")
        guard case .transient(_, let after) = TransferOutcome.classify(.success(response), now: Date()) else {
            Issue.record("not transient")
            return
        }
        #expect(after == .seconds(7))
        let next = try await client.send(HTTPRequest(method: .get, url: proxy.baseURL + "/x")) // the rule is used up
        #expect(next.status == 200)
        #expect(upstream.received.count == 1)
        #expect(proxy.counters.unavailable == 1 && proxy.counters.forwarded == 1)
    }

    @Test("Rules apply in the order added, to matching requests only, as many times as given")
    func rules() async throws {
        let upstream = try LoopbackHTTPServer(status: 200, body: "ok")
        defer { upstream.stop() }
        let proxy = try LoopbackFaultProxy(upstreamPort: upstream.port)
        defer { proxy.stop() }
        proxy.add(.unavailable(retryAfter: "1"), times: 2) { $0.path.hasPrefix("/busy") }
        proxy.add(.unavailable(retryAfter: "2")) { $0.method == "GET" }
        let client = try Self.client()
        var statuses: [Int] = []
        for path in ["/free", "/busy", "/busy", "/busy", "/free"] {
            statuses.append(try await client.send(HTTPRequest(method: .get, url: proxy.baseURL + path)).status)
        }
        #expect(statuses == [503, 503, 503, 200, 200])
        #expect(proxy.log.map(\.request.number) == [1, 2, 3, 4, 5])
        #expect(proxy.log.map(\.fault) == [.unavailable(retryAfter: "2"), .unavailable(retryAfter: "1"), .unavailable(retryAfter: "1"),
                                           .forward, .forward])
    }

    @Test("An upstream that is not there: the client's connection closes, counted as an upstream failure")
    func upstreamGone() async throws {
        let port = try { () throws -> Int in // bound, then closed: nothing listens there
            let server = try LoopbackHTTPServer()
            server.stop()
            return server.port
        }()
        let proxy = try LoopbackFaultProxy(upstreamPort: port)
        defer { proxy.stop() }
        await #expect(throws: TransportError.self) {
            _ = try await Self.client().send(HTTPRequest(method: .get, url: proxy.baseURL + "/x"))
        }
        #expect(proxy.counters.upstreamFailures >= 1)
    }
}
