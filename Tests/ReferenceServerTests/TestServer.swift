import Foundation
import Logging
import ReferenceServer

/// A reference server on 127.0.0.1 with a free port and a fresh data directory, stopped and removed after `body`.
struct TestServer {
    let running: RunningReferenceServer
    let dataDirectory: String
    let logPath: String

    var port: Int { running.port }

    /// Reads the request log's lines as JSON objects.
    func logEntries() throws -> [[String: Any]] {
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The log's entries once it has at least `count` (a handler may finish after its client saw the connection end),
    /// or what it has after a minute.
    func logEntries(atLeast count: Int) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let entries = (try? logEntries()) ?? []
            if entries.count >= count { return entries }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try logEntries()
    }

    /// Files stored under images/ (excluding the partial directory).
    func storedImages() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/images").filter { $0 != ".partial" }
    }

    /// Files left in images/.partial.
    func partialFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/images/.partial")
    }
}

import Testing

/// Runs `body` against a fresh in-process server configured by `configure`.
func withServer(_ configure: (inout ReferenceServerConfiguration) throws -> Void = { _ in },
                _ body: (TestServer) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-server-tests-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var configuration = ReferenceServerConfiguration(dataDirectory: directory + "/data", port: 0,
                                                     requestLogPath: nil, synchronousImageWrites: false)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    configuration.requestLogPath = directory + "/requests.jsonl"
    try configure(&configuration)
    let server = try ReferenceServer(configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    let running = try await server.start()
    let testServer = TestServer(running: running, dataDirectory: directory + "/data", logPath: directory + "/requests.jsonl")
    do {
        try await body(testServer)
    } catch {
        await running.stop()
        throw error
    }
    await running.stop()
}

/// Starts a server with `configuration` whose logs are dropped (for tests that stop it themselves).
func startQuietly(_ configuration: ReferenceServerConfiguration) async throws -> RunningReferenceServer {
    try await ReferenceServer(configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })).start()
}

/// Test fixtures: image bytes, their SHA-256 and recipe documents.
enum Fixture {
    /// `count` bytes of a fake PNG (the server checks the hash, not the format).
    static func image(_ count: Int = 4096, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    /// Hex SHA-256 of some bytes.
    static func sha256(_ data: Data) -> String { ImageDigest.sha256Hex(of: data) }

    /// The headers of a recipe PUT for a recipe new to the server.
    static let asNew = ["Content-Type": "application/json", "If-None-Match": "*"]

    /// The headers of a recipe write based on server version `base`.
    static func basedOn(_ base: Int) -> [String: String] { ["Content-Type": "application/json", "If-Match": "\"\(base)\""] }

    /// A recipe document.
    static func recipe(_ identifier: String, version: Int, name: String = "Tomato soup", image: String? = nil) -> Data {
        var object: [String: Any] = ["@context": "https://schema.org", "@type": "Recipe", "identifier": identifier,
                                     "version": version, "name": name, "recipeIngredient": ["2 tomatoes"]]
        if let image { object["image"] = image }
        return try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
