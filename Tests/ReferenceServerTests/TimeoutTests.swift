import Foundation
import Testing
import ReferenceServer

@Suite("Idle, body and drain timeouts over real sockets")
struct TimeoutTests {
    /// Short timeouts so each test takes a second or two: idle 300 ms, body periods of 300 ms at 1 KiB/s, drain 300 ms.
    static let short = ServerTimeouts(idle: .milliseconds(300), body: .milliseconds(300), minimumBodyRate: 1024, drain: .milliseconds(300))

    private func timeouts(_ timeouts: ServerTimeouts = short) -> (inout ReferenceServerConfiguration) throws -> Void {
        { configuration in configuration.timeouts = timeouts }
    }

    @Test("an idle connection, new or after an answered request, is closed by the server after the idle timeout")
    func idleConnection() async throws {
        try await withServer(timeouts()) { (server: TestServer) async throws in
            #expect(await PacedClient.connectionsClosedByServer(port: server.port, count: 1, waitUpTo: 10) == 1)
            let request = RawHTTPClient.requestHead(port: server.port, method: "GET", path: "/v1/health", headers: [:])
            #expect(await PacedClient.connectionsClosedByServer(port: server.port, count: 1, prefix: request, waitUpTo: 10) == 1)
        }
    }

    @Test("300 idle connections are all closed after the idle timeout")
    func manyIdleConnections() async throws {
        try await withServer(timeouts()) { (server: TestServer) async throws in
            #expect(await PacedClient.connectionsClosedByServer(port: server.port, count: 300, waitUpTo: 10) == 300)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health").status == 200)
        }
    }

    @Test("an image body that stalls after 3 of 100,000 bytes is answered 408 with Connection: close; the log records an incomplete body; nothing is stored")
    func stalledImageBody() async throws {
        try await withServer(timeouts()) { (server: TestServer) async throws in
            let sha = Fixture.sha256(Fixture.image(100_000))
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                      headers: ["Content-Type": "image/png"], body: Data([1, 2, 3]),
                                                      declaredLength: 100_000)
            #expect(answer.status == 408)
            #expect(answer.header("connection") == "close")
            #expect(answer.json["error"] as? String == "body-timeout")
            let entry = try #require(try await server.logEntries(atLeast: 1).first)
            #expect(entry["status"] as? Int == 408)
            #expect(entry["bytesReceived"] as? Int == 3)
            #expect(entry["bodyComplete"] as? Bool == false)
            #expect(try server.storedImages().isEmpty)
            #expect(try server.partialFiles().isEmpty)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "HEAD", path: "/v1/images/\(sha)").status == 404)
        }
    }

    @Test("a recipe body that stalls is answered 408 and the recipe is not stored")
    func stalledRecipeBody() async throws {
        try await withServer(timeouts()) { (server: TestServer) async throws in
            let id = UUID().uuidString
            let document = Fixture.recipe(id, version: 1)
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)",
                                                      headers: Fixture.asNew, body: document.prefix(3),
                                                      declaredLength: document.count)
            #expect(answer.status == 408)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(id)").status == 404)
        }
    }

    @Test("a body that trickles 10 bytes every 50 ms (below 1 KiB/s) is ended with 408; nothing is stored")
    func tricklingBody() async throws {
        try await withServer(timeouts()) { (server: TestServer) async throws in
            let image = Fixture.image(100_000)
            let chunks = (0..<40).map { index in image.subdata(in: (index * 10)..<(index * 10 + 10)) }
            let answer = await PacedClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(Fixture.sha256(image))",
                                                    headers: ["Content-Type": "image/png"], declaredLength: image.count,
                                                    chunks: chunks, pause: 0.05)
            #expect(answer.status == 408)
            #expect(try server.storedImages().isEmpty)
            #expect(try await server.logEntries(atLeast: 1).first?["bodyComplete"] as? Bool == false)
        }
    }

    @Test("a 1 MiB image sent steadily in 64 KiB chunks over about 3 s is stored (201), with body periods of 1 s")
    func slowSteadyUpload() async throws {
        let timeouts = ServerTimeouts(idle: .seconds(1), body: .seconds(1), minimumBodyRate: 1024, drain: .seconds(1))
        try await withServer(self.timeouts(timeouts)) { (server: TestServer) async throws in
            let image = Fixture.image(1 << 20)
            let chunks = stride(from: 0, to: image.count, by: 64 << 10).map { image.subdata(in: $0..<min($0 + (64 << 10), image.count)) }
            let answer = await PacedClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(Fixture.sha256(image))",
                                                    headers: ["Content-Type": "image/png"], declaredLength: image.count,
                                                    chunks: chunks, pause: 0.2)
            #expect(answer.status == 201, "\(answer.json["message"] ?? "")")
            #expect(try server.storedImages() == [Fixture.sha256(image)])
        }
    }

    @Test("a request head with a 1 MiB header line is answered 431 with Connection: close, and the server serves on")
    func hugeHeaderLine() async throws {
        try await withServer { (server: TestServer) async throws in
            let answer = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health",
                                                      headers: ["X-Padding": String(repeating: "a", count: 1 << 20)])
            #expect(answer.status == 431)
            #expect(answer.header("connection") == "close")
            #expect(answer.json["error"] as? String == "headers-too-large")
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health").status == 200)
        }
    }

    @Test("stop() lets a request in progress finish within the drain timeout")
    func drainLetsRequestsFinish() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-server-drain-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let timeouts = ServerTimeouts(idle: .seconds(60), body: .seconds(30), minimumBodyRate: 1024, drain: .seconds(5))
        let configuration = ReferenceServerConfiguration(dataDirectory: directory, port: 0, faults: [try FaultRule.parse("GET /v1/health: latency=400ms")],
                                                         synchronousImageWrites: false, timeouts: timeouts)
        let running = try await startQuietly(configuration)
        let port = running.port
        let slow = Task { await RawHTTPClient.exchange(port: port, method: "GET", path: "/v1/health") }
        try await Task.sleep(for: .milliseconds(150))
        await running.stop()
        #expect(await slow.value.status == 200)
    }

    @Test("stop() with an upload stalled mid-body returns once the drain timeout has passed; the upload stores nothing")
    func drainClosesStalledUploads() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-server-drain-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let timeouts = ServerTimeouts(idle: .seconds(60), body: .seconds(60), minimumBodyRate: 1024, drain: .milliseconds(300))
        let configuration = ReferenceServerConfiguration(dataDirectory: directory, port: 0, synchronousImageWrites: false, timeouts: timeouts)
        let running = try await startQuietly(configuration)
        let port = running.port
        let sha = Fixture.sha256(Fixture.image(100_000))
        let stalled = Task {
            await RawHTTPClient.exchange(port: port, method: "PUT", path: "/v1/images/\(sha)", headers: ["Content-Type": "image/png"],
                                         body: Data([1, 2, 3]), declaredLength: 100_000, readTimeout: 30)
        }
        try await Task.sleep(for: .milliseconds(200))
        let stopped: Task<Void, Never> = Task { await running.stop() }
        let outcome = await stalled.value
        #expect(outcome == .closedWithoutAnswer || outcome == .reset)
        #expect(await Self.finishes(stopped, within: .seconds(30)), "stop() is still waiting for the stalled upload (its body timeout is 60 s)")
        let images = try FileManager.default.contentsOfDirectory(atPath: directory + "/images").filter { $0 != ".partial" }
        #expect(images.isEmpty)
    }

    @Test("SIGTERM to recipes-server with an upload stalled mid-body exits 0 once --drain-timeout has passed; nothing is stored")
    func sigtermWithStalledUpload() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-server-sigterm-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await CommandTests.launch(["--data", directory, "--port", "0", "--drain-timeout", "500ms", "--body-timeout", "60s"])
        let process = server.process
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let port = try #require(server.port, "no listening line: \(server.line)")
        let sha = Fixture.sha256(Fixture.image(100_000))
        let stalled = Task {
            await RawHTTPClient.exchange(port: port, method: "PUT", path: "/v1/images/\(sha)", headers: ["Content-Type": "image/png"],
                                         body: Data([1, 2, 3]), declaredLength: 100_000, readTimeout: 30)
        }
        try await Task.sleep(for: .milliseconds(300))
        process.terminate()
        let exited: Task<Void, Never> = Task.detached { process.waitUntilExit() }
        #expect(await Self.finishes(exited, within: .seconds(30)), "recipes-server still running after SIGTERM (its body timeout is 60 s)")
        #expect(!process.isRunning && process.terminationStatus == 0)
        let outcome = await stalled.value
        #expect(outcome == .closedWithoutAnswer || outcome == .reset)
        let images = try FileManager.default.contentsOfDirectory(atPath: directory + "/images").filter { $0 != ".partial" }
        #expect(images.isEmpty)
    }

    /// Whether `task` finishes within `limit` (a bound against hanging, not a measurement); the task is left running otherwise.
    static func finishes<T: Sendable>(_ task: Task<T, Never>, within limit: Duration) async -> Bool {
        let (stream, continuation) = AsyncStream<Bool>.makeStream()
        let waiter = Task {
            _ = await task.value
            continuation.yield(true)
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.yield(false)
        }
        var iterator = stream.makeAsyncIterator()
        let finished = await iterator.next() ?? false
        timer.cancel()
        if !finished { waiter.cancel() }
        continuation.finish()
        return finished
    }
}
