import Foundation
import Logging
import ReferenceServer
import Transport

/// A live in-process recipes-server plus a real `Transport.HTTPClient` pointed at it.
struct ConformanceServer {
    let running: RunningReferenceServer
    let client: HTTPClient
    let directory: String

    var baseURL: String { running.baseURL }

    /// `baseURL + path`.
    func url(_ path: String) -> String { baseURL + path }

    /// Sends a request through the transport and returns the answer (a transport error fails the test).
    func send(_ method: HTTPMethod, _ path: String, headers: [String: String] = [:], body: RequestBody = .empty) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(method: method, url: url(path), headers: headers, body: body))
    }

    /// PUTs a recipe document with `If-None-Match: *` (base nil) or `If-Match: "<base>"`.
    func putRecipe(_ id: String, base: Int?, _ document: Data) async throws -> HTTPResponse {
        try await send(.put, "/v1/recipes/\(id)", headers: Sample.precondition(base), body: Sample.json(document))
    }

    /// Sends a request and classifies the outcome the way the sync engine will.
    func outcome(_ method: HTTPMethod, _ path: String, headers: [String: String] = [:], body: RequestBody = .empty) async -> TransferOutcome {
        let result: Result<HTTPResponse, TransportError>
        do { result = .success(try await client.send(HTTPRequest(method: method, url: url(path), headers: headers, body: body))) } catch {
            result = .failure(error)
        }
        return TransferOutcome.classify(result, now: Date())
    }

    /// Writes `data` to a file in the test's directory and returns its path (to be streamed by the transport).
    func file(_ data: Data, name: String = UUID().uuidString) throws -> String {
        let path = directory + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Image files the server stored (partial files excluded).
    func storedImages() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/data/images").filter { $0 != ".partial" }
    }

    /// Partial files left behind.
    func partialFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/data/images/.partial")
    }
}

/// The conformance client's low-speed limit: a stalled transfer that nothing cancels fails as a timeout after it. Long,
/// so that a test telling a cancellation from it by half of it does so on a loaded machine too.
let conformanceLowSpeedTime: Duration = .seconds(120)

/// Runs `body` against a fresh server (faults, token, size limit as given) and a fresh transport client.
func withConformanceServer(faults: [String] = [], serverToken: String? = nil, clientToken: String? = nil,
                           maxImageBytes: Int64 = ReferenceServerConfiguration.defaultMaxImageBytes,
                           _ body: (ConformanceServer) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-conformance-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let configuration = ReferenceServerConfiguration(
        dataDirectory: directory + "/data", port: 0, token: serverToken, maxImageBytes: maxImageBytes,
        faults: try faults.map { try FaultRule.parse($0) }, synchronousImageWrites: false)
    let running = try await ReferenceServer(configuration: configuration, logger: quietLogger).start()
    let client = try HTTPClient(configuration: HTTPClientConfiguration(
        credentials: .of(clientToken, at: running.baseURL), connectTimeout: .seconds(5), lowSpeedTime: conformanceLowSpeedTime))
    let server = ConformanceServer(running: running, client: client, directory: directory)
    do {
        try await body(server)
    } catch {
        await running.stop()
        throw error
    }
    await running.stop()
}

/// Image bytes, their names and recipe documents.
enum Sample {
    /// `count` deterministic bytes.
    static func image(_ count: Int = 64 * 1024, seed: UInt8 = 1) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed)) })
    }

    /// The recipe JSON of docs/http-api.md.
    static func recipe(_ identifier: String, version: Int, name: String = "Tomato soup", image: String? = nil) -> Data {
        var object: [String: Any] = [
            "@context": "https://schema.org", "@type": "Recipe", "identifier": identifier, "version": version,
            "name": name, "description": "Warm.", "recipeYield": "4 servings", "keywords": "soup,vegan",
            "recipeIngredient": ["2 tomatoes", "1 onion"],
            "recipeInstructions": [["@type": "HowToStep", "text": "Chop."]],
            "dateModified": "2026-11-20T10:00:00Z",
        ]
        if let image { object["image"] = image }
        return try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// The precondition header of a write based on `base` (nil: a recipe new to the server).
    static func precondition(_ base: Int?) -> [String: String] {
        base.map { ["If-Match": "\"\($0)\""] } ?? ["If-None-Match": "*"]
    }

    /// A JSON request body.
    static func json(_ data: Data) -> RequestBody { .data(data, contentType: "application/json") }

    /// Parses a JSON object answer.
    static func object(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
    }
}

/// A logger that drops everything, so test output shows only test results.
let quietLogger = Logger(label: "conformance", factory: { _ in SwiftLogNoOpLogHandler() })
