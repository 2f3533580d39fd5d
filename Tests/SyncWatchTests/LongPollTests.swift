import Foundation
import Logging
import RecipeModels
import RecipeStore
import RecipeSync
import ReferenceServer
@testable import SyncWatch
import Testing
import Transport

@Suite("The long poll: what its answers mean, and the real server holding and answering it")
struct LongPollTests {
    static let server = "3f0c5a"
    static let cursor = FeedCursor(server: server, seq: 7)
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func page(server: String = server, changes: String = "", next: Int = 7) -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: ["content-type": "application/json"],
            body: Data(#"{"server":"\#(server)","changes":[\#(changes)],"next":\#(next),"more":false}"#.utf8))
    }

    static let change = #"{"seq":8,"uuid":"8d7e4a43-0b0f-4f4b-9a3e-1f2d3c4b5a69","version":2,"deleted":true}"#
    static let passed = #"{"seq":7,"uuid":"8d7e4a43-0b0f-4f4b-9a3e-1f2d3c4b5a69","version":2,"deleted":true}"#

    @Test("each outcome of a long poll is read as the table says", arguments: [
        ("a change after the cursor", .success(page(changes: change, next: 8)), 3.0, WatchMachine.LongPollAnswer.changes),
        ("another server id (reset or another server)", .success(page(server: "other")), 50, .changes),
        ("only a change the cursor has passed (a server that lies), at once: a failure, so it backs off",
         .success(page(changes: passed, next: 7)), 0.01, .failed(retryAfter: nil)),
        ("only a change the cursor has passed, held the whole wait: still no change", .success(page(changes: passed)), 50,
         .failed(retryAfter: nil)),
        ("held empty for the whole wait", .success(page()), 50, .empty),
        ("held empty for half the wait", .success(page()), 25, .empty),
        ("empty at once: the server does not hold (no busy loop)", .success(page()), 0.01, .failed(retryAfter: nil)),
        ("401", .success(HTTPResponse(status: 401, headers: [:], body: Data())), 0.01, .refused),
        ("403", .success(HTTPResponse(status: 403, headers: [:], body: Data())), 0.01, .refused),
        ("503 with Retry-After", .success(HTTPResponse(status: 503, headers: ["retry-after": "120"], body: Data())), 0.01,
         .failed(retryAfter: 120)),
        ("404 (a server without the feed)", .success(HTTPResponse(status: 404, headers: [:], body: Data())), 0.01,
         .failed(retryAfter: nil)),
        ("200 that is not the feed (a portal's page)",
         .success(HTTPResponse(status: 200, headers: ["content-type": "text/html"], body: Data("<html>".utf8))), 0.01,
         .failed(retryAfter: nil)),
        ("connection refused", .failure(TransportError(kind: .connectionRefused, message: "refused")), 0.01, .unreachable),
        ("no DNS", .failure(TransportError(kind: .dnsFailure, message: "no name")), 0.01, .unreachable),
        ("connect timeout", .failure(TransportError(kind: .connectTimeout, message: "slow")), 10, .unreachable),
        ("connection lost mid-wait", .failure(TransportError(kind: .connectionLost, message: "reset")), 30, .failed(retryAfter: nil)),
    ] as [(String, Result<HTTPResponse, TransportError>, Double, WatchMachine.LongPollAnswer)])
    func answers(_ what: String, outcome: Result<HTTPResponse, TransportError>, held: Double,
                 expected: WatchMachine.LongPollAnswer) {
        #expect(LongPoll.answer(outcome, cursor: Self.cursor, held: held, wait: 50, now: Self.now) == expected, "\(what)")
    }

    @Test("the reference server holds an empty long poll for the wait, then answers it empty")
    func heldThenEmpty() async throws {
        try await withServer { server in
            let settings = try SyncSettings(api: server.api)
            let poll = try LongPoll(settings: settings, api: server.api, wait: 1)
            let first = await poll.ask(after: FeedCursor(server: nil, seq: 0))
            #expect(first == .changes, "a home that never pulled learns the server's id: \(String(describing: first))")
            let id = try await server.serverID()
            #expect(await poll.ask(after: FeedCursor(server: id, seq: 0)) == .empty)
        }
    }

    @Test("a write on the server during the wait ends the long poll with changes")
    func writeEndsTheWait() async throws {
        try await withServer { server in
            let settings = try SyncSettings(api: server.api)
            let poll = try LongPoll(settings: settings, api: server.api, wait: 60)
            let id = try await server.serverID()
            let asking = Task { await poll.ask(after: FeedCursor(server: id, seq: 0)) }
            try await Task.sleep(for: .milliseconds(300))
            let uuid = UUID()
            let document = #"{"@context":"https://schema.org","@type":"Recipe","identifier":"\#(uuid.uuidString.lowercased())","version":1,"name":"Soup"}"#
            let put = try await server.send(HTTPRequest(
                method: .put, url: server.baseURL + "/v1/recipes/\(uuid.uuidString.lowercased())",
                headers: ["If-None-Match": "*"], body: .data(Data(document.utf8), contentType: "application/json")))
            #expect(put.status == 201)
            #expect(await asking.value == .changes)
        }
    }

    @Test("nothing listening: unreachable; a token the server refuses: refused; a cancelled task: no answer")
    func unreachableRefusedCancelled() async throws {
        let closed = try #require(ServerAPI(baseURL: "http://127.0.0.1:\(try closedPort())"))
        let unreachable = try LongPoll(settings: SyncSettings(api: closed), api: closed, wait: 5)
        #expect(await unreachable.ask(after: Self.cursor) == .unreachable)
        try await withServer(token: "right") { server in
            let refused = try LongPoll(settings: SyncSettings(api: server.api, token: "wrong"), api: server.api, wait: 5)
            #expect(await refused.ask(after: Self.cursor) == .refused)
            let held = try LongPoll(settings: SyncSettings(api: server.api, token: "right"), api: server.api, wait: 60)
            let id = try await server.serverID()
            let asking = Task { await held.ask(after: FeedCursor(server: id, seq: 0)) }
            try await Task.sleep(for: .milliseconds(300))
            asking.cancel()
            #expect(await asking.value == nil)
        }
    }
}

// MARK: - A reference server in this process

struct TestServer: Sendable {
    let running: RunningReferenceServer
    let token: String?
    var baseURL: String { running.baseURL }
    /// The server's requests; a base URL that `ServerAPI` refuses fails the test instead of crashing the test process.
    var api: ServerAPI { get throws { try #require(ServerAPI(baseURL: baseURL), "no ServerAPI for \(baseURL)") } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await HTTPClient(configuration: HTTPClientConfiguration(credentials: .of(token, at: baseURL))).send(request)
    }

    /// The server's id, from an empty page of its feed.
    func serverID() async throws -> String {
        let response = try await send(HTTPRequest(method: .get, url: baseURL + "/v1/changes?since=0&limit=1"))
        return try #require(ChangesPage(response.body)).server
    }
}

/// Runs `body` against a fresh in-process reference server, stopped after.
func withServer(token: String? = nil, _ body: (TestServer) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("watch-server-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let configuration = ReferenceServerConfiguration(
        dataDirectory: directory + "/data", port: 0, token: token, requestLogPath: nil, faults: [],
        synchronousImageWrites: false)
    let logger = Logger(label: "watch-tests", factory: { _ in SwiftLogNoOpLogHandler() })
    let running = try await ReferenceServer(configuration: configuration, logger: logger).start()
    do {
        try await body(TestServer(running: running, token: token))
    } catch {
        await running.stop()
        throw error
    }
    await running.stop()
}

/// A loopback TCP port nothing listens on: bound, noted, closed.
func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    try #require(bound)
    return Int(UInt16(bigEndian: address.sin_port))
}
