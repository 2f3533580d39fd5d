import Foundation
import HTTPTestSupport
import Locking
import Testing
import Transport

@Suite("HTTPClient requests against a real loopback server")
struct HTTPClientRequestTests {
    @Test("GET returns status, body and headers, and sends the User-Agent and bearer token")
    func getSendsIdentity() async throws {
        let server = try LoopbackHTTPServer { _ in
            .respond(status: 200, headers: ["Content-Type": "application/json", "X-Thing": "yes"], body: Data(#"{"status":"ok"}"#.utf8))
        }
        defer { server.stop() }
        let client = try TestSupport.client(token: "s3cret-token", tokenOrigin: server.baseURL)
        let response = try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/v1/health"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"status":"ok"}"#)
        #expect(response.header("content-type") == "application/json")
        #expect(response.header("X-THING") == "yes")
        let head = try #require(server.received.first?.head)
        #expect(head.method == "GET")
        #expect(head.path == "/v1/health")
        #expect(head.headers["user-agent"] == "recipes/test")
        #expect(head.headers["authorization"] == "Bearer s3cret-token")
    }

    @Test("HEAD is sent as HEAD and a 404 comes back as a response, not an error")
    func headNotFound() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 404, body: Data("not here".utf8)) }
        defer { server.stop() }
        let client = try TestSupport.client()
        let response = try await client.send(HTTPRequest(method: .head, url: server.baseURL + "/v1/images/abc"))
        #expect(response.status == 404)
        #expect(response.body.isEmpty)
        #expect(server.received.first?.head.method == "HEAD")
    }

    @Test("DELETE is sent as DELETE without a body")
    func delete() async throws {
        let server = try LoopbackHTTPServer(status: 204, body: "")
        defer { server.stop() }
        let client = try TestSupport.client()
        let response = try await client.send(HTTPRequest(method: .delete, url: server.baseURL + "/v1/recipes/u1"))
        #expect(response.status == 204)
        let received = try #require(server.received.first)
        #expect(received.head.method == "DELETE")
        #expect(received.bodyCount == 0)
    }

    @Test("A JSON PUT sends the exact bytes with Content-Type and Content-Length and no Expect: 100-continue")
    func jsonPut() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 201, body: Data(#"{"identifier":"u1","version":3}"#.utf8)) }
        defer { server.stop() }
        let client = try TestSupport.client()
        let json = Data(#"{"@type":"Recipe","identifier":"u1","version":3}"#.utf8)
        let response = try await client.send(HTTPRequest(method: .put, url: server.baseURL + "/v1/recipes/u1",
                                                         body: .data(json, contentType: "application/json")))
        #expect(response.status == 201)
        let received = try #require(server.received.first)
        #expect(received.head.method == "PUT")
        #expect(received.body == json)
        #expect(received.head.headers["content-type"] == "application/json")
        #expect(received.head.headers["content-length"] == String(json.count))
        #expect(received.head.headers["expect"] == nil)
    }

    @Test("A file PUT streams every byte of a 24 MiB file with Content-Length and reports progress up to the total")
    func filePutStreams() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 24 << 20
        let file = try TestSupport.makeFile(size: size, in: directory)
        let server = try LoopbackHTTPServer { _ in .respond(status: 201, body: Data("{}".utf8)) }
        defer { server.stop() }
        let client = try TestSupport.client()
        let reports = Locked<[TransferProgress]>([])
        let response = try await client.send(
            HTTPRequest(method: .put, url: server.baseURL + "/v1/images/x", body: .file(path: file.path, contentType: "image/jpeg")),
            progress: { progress in reports.withLock { $0.append(progress) } })
        #expect(response.status == 201)
        let received = try #require(server.received.first)
        #expect(received.bodyCount == Int64(size))
        #expect(received.bodyDigest == file.digest)
        #expect(received.head.headers["content-length"] == String(size))
        #expect(received.head.headers["content-type"] == "image/jpeg")
        #expect(received.head.headers["expect"] == nil)
        #expect(received.head.headers["transfer-encoding"] == nil)
        let progress = reports.withLock { $0 }
        #expect(progress.last == TransferProgress(sent: Int64(size), total: Int64(size)))
        #expect(progress.allSatisfy { $0.total == Int64(size) })
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.sent <= $1.sent })
    }

    @Test("An empty PUT sends Content-Length: 0")
    func emptyPut() async throws {
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        let client = try TestSupport.client()
        _ = try await client.send(HTTPRequest(method: .put, url: server.baseURL + "/x"))
        #expect(server.received.first?.head.headers["content-length"] == "0")
    }

    @Test("Extra request headers are sent; a header with a line break is refused before anything is sent")
    func extraHeaders() async throws {
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        let client = try TestSupport.client()
        _ = try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/x", headers: ["If-None-Match": "\"v1\""]))
        #expect(server.received.first?.head.headers["if-none-match"] == "\"v1\"")
        let error = await #expect(throws: TransportError.self) {
            _ = try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/x", headers: ["X-Evil": "a\r\nB: c"]))
        }
        #expect(error?.kind == .invalidRequest)
        #expect(server.heads.count == 1)
    }

    @Test("Twenty requests in a row, GETs and file PUTs, reuse one TCP connection")
    func connectionReuse() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try TestSupport.makeFile(size: 300_000, in: directory)
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        let client = try TestSupport.client()
        for index in 0..<20 {
            let request = index.isMultiple(of: 2)
                ? HTTPRequest(method: .get, url: server.baseURL + "/v1/health")
                : HTTPRequest(method: .put, url: server.baseURL + "/v1/images/\(index)", body: .file(path: file.path, contentType: "image/png"))
            let response = try await client.send(request)
            #expect(response.status == 200)
        }
        #expect(server.received.count == 20)
        #expect(server.connectionCount == 1)
        #expect(Set(server.received.map(\.head.connection)) == [1])
    }

    @Test("Handles are reused one request after another, and nothing of one request leaks into the next: method, body, headers, token")
    func reusedHandlesStartClean() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try TestSupport.makeFile(size: 70_000, in: directory)
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        let client = try TestSupport.client(token: "s3cret-token", tokenOrigin: server.baseURL)
        let requests = [
            HTTPRequest(method: .put, url: server.baseURL + "/a", headers: ["X-Only-Here": "1"],
                        body: .file(path: file.path, contentType: "image/png")),
            HTTPRequest(method: .head, url: server.baseURL + "/b"),
            HTTPRequest(method: .delete, url: server.baseURL + "/c"),
            HTTPRequest(method: .get, url: server.baseURL + "/d"),
            HTTPRequest(method: .put, url: server.baseURL + "/e", body: .data(Data("{}".utf8), contentType: "application/json")),
            HTTPRequest(method: .get, url: server.baseURL + "/f"),
        ]
        for request in requests { _ = try await client.send(request) }
        let seen = server.received.map { ($0.head.method, $0.head.path, $0.bodyCount, $0.head.headers) }
        #expect(seen.map(\.0) == ["PUT", "HEAD", "DELETE", "GET", "PUT", "GET"])
        #expect(seen.map(\.1) == ["/a", "/b", "/c", "/d", "/e", "/f"])
        #expect(seen.map(\.2) == [70_000, 0, 0, 0, 2, 0])
        #expect(seen.map { $0.3["x-only-here"] } == ["1", nil, nil, nil, nil, nil])
        #expect(seen.map { $0.3["content-type"] } == ["image/png", nil, nil, nil, "application/json", nil])
        #expect(seen.allSatisfy { $0.3["authorization"] == "Bearer s3cret-token" })
    }

    @Test("After an answer with a halting status (401), nothing more is sent: later requests fail as halted; without one, they go")
    func haltingStatusStopsTheClient() async throws {
        let server = try LoopbackHTTPServer(status: 401, body: "{}")
        defer { server.stop() }
        var configuration = HTTPClientConfiguration(userAgent: "recipes/test", maxConcurrentTransfers: 1)
        configuration.haltingStatuses = [401, 403]
        let halting = try HTTPClient(configuration: configuration)
        #expect(try await halting.send(HTTPRequest(method: .head, url: server.baseURL + "/first")).status == 401)
        for path in ["/second", "/third"] {
            do {
                _ = try await halting.send(HTTPRequest(method: .put, url: server.baseURL + path, body: .data(Data("x".utf8), contentType: "text/plain")))
                Issue.record("\(path) was sent after the client halted")
            } catch {
                #expect(error.kind == .halted)
            }
        }
        #expect(server.received.map(\.head.path) == ["/first"])

        let plain = try TestSupport.client(maxConcurrentTransfers: 1)
        #expect(try await plain.send(HTTPRequest(method: .head, url: server.baseURL + "/a")).status == 401)
        #expect(try await plain.send(HTTPRequest(method: .head, url: server.baseURL + "/b")).status == 401)
        #expect(server.received.map(\.head.path) == ["/first", "/a", "/b"])
    }

    @Test("No more than maxConcurrentTransfers requests are on the wire at once; the others wait and all complete")
    func concurrencyLimit() async throws {
        let server = try LoopbackHTTPServer { _ in
            Thread.sleep(forTimeInterval: 0.05)
            return .respond(status: 200)
        }
        defer { server.stop() }
        let client = try TestSupport.client(maxConcurrentTransfers: 2)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask { try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/\(index)")).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 8))
        #expect(server.maxInFlight == 2)
        #expect(server.connectionCount == 2)
    }

    @Test("A non-2xx answer is returned with the server's error body, which classification turns into the message")
    func errorBodyReachesClassification() async throws {
        let server = try LoopbackHTTPServer { _ in
            .respond(status: 422, headers: ["Content-Type": "application/json"],
                     body: Data(#"{"error":"hash_mismatch","message":"the body's SHA-256 differs from the path"}"#.utf8))
        }
        defer { server.stop() }
        let client = try TestSupport.client()
        let result: Result<HTTPResponse, TransportError>
        do { result = .success(try await client.send(HTTPRequest(method: .put, url: server.baseURL + "/v1/images/ab",
                                                                  body: .data(Data([1, 2, 3]), contentType: "image/png")))) }
        catch { result = .failure(error) }
        #expect(TransferOutcome.classify(result, now: Date())
                == .permanent(status: 422, message: "HTTP 422: the body's SHA-256 differs from the path"))
    }
}
