import HTTPTestSupport
import Foundation
import GRDB
import Locking
import Logging
import OperationEngine
import OperationEngineTestSupport
import RecipeModels
import RecipeStore
import RecipeSync
import RecipesTestSupport
import ReferenceServer
import Testing
import Transport

// MARK: - Events

/// Collects the events a run emits (the `emit` closure runs on many tasks at once).
final class EventRecorder: Sendable {
    private let storage = Locked<[SyncEvent]>([])

    /// The closure to hand to `SyncRun`.
    var emit: @Sendable (SyncEvent) -> Void { { [self] event in storage.withLock { $0.append(event) } } }

    /// Every event so far, in the order they were emitted.
    var events: [SyncEvent] { storage.withLock { $0 } }

    /// The events of `kind`.
    func events(_ kind: SyncEvent.Kind) -> [SyncEvent] { events.filter { $0.kind == kind } }

    /// Waits (polling every 5 ms, at most `timeout`) for an event matching `predicate`.
    func wait(timeout: Duration = .seconds(60), for predicate: (SyncEvent) -> Bool) async -> SyncEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let event = events.first(where: predicate) { return event }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return events.first(where: predicate)
    }
}

// MARK: - Server

/// One line of the reference server's request log.
struct LoggedRequest {
    var method: String
    var path: String
    var status: Int?
    var start: Date
    var end: Date
    var fault: String?
    var bytesReceived: Int
    var bodyComplete: Bool

    var isImagePut: Bool { method == "PUT" && path.hasPrefix("/v1/images/") }
    var isImageHead: Bool { method == "HEAD" && path.hasPrefix("/v1/images/") }
    var isRecipePut: Bool { method == "PUT" && path.hasPrefix("/v1/recipes/") }
    var isRecipeDelete: Bool { method == "DELETE" && path.hasPrefix("/v1/recipes/") }
}

/// A live in-process reference server with its own data directory and request log.
struct SyncServer: Sendable {
    let running: RunningReferenceServer
    let directory: String
    let token: String?

    var baseURL: String { running.baseURL }
    var dataDirectory: String { directory + "/data" }
    var logPath: String { directory + "/requests.jsonl" }
    /// The server's requests; a base URL that `ServerAPI` refuses fails the test instead of crashing the test process.
    var api: ServerAPI { get throws { try #require(ServerAPI(baseURL: baseURL), "no ServerAPI for \(baseURL)") } }

    /// The request log as it is now (an absent log is empty), without the run's one `GET /v1/health` (the client's ask
    /// for the server's optional requests, which the tests of other requests are not about).
    func requests() -> [LoggedRequest] {
        allRequests().filter { !($0.method == "GET" && $0.path == "/v1/health") }
    }

    /// The whole request log as it is now.
    func allRequests() -> [LoggedRequest] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let method = object["method"] as? String, let path = object["path"] as? String,
                let start = (object["start"] as? String).flatMap(formatter.date(from:)),
                let end = (object["end"] as? String).flatMap(formatter.date(from:))
            else { return nil }
            return LoggedRequest(
                method: method, path: path, status: object["status"] as? Int, start: start, end: end,
                fault: object["fault"] as? String, bytesReceived: object["bytesReceived"] as? Int ?? 0,
                bodyComplete: object["bodyComplete"] as? Bool ?? false)
        }
    }

    /// The request log once it has at least `count` lines (a handler may log after its client saw the answer),
    /// then once it has stopped growing for a moment.
    func requests(atLeast count: Int) async -> [LoggedRequest] {
        let deadline = ContinuousClock.now + .seconds(60)
        while requests().count < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        try? await Task.sleep(for: .milliseconds(50))
        return requests()
    }

    /// Image files the server stored.
    func storedImages() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/images")) ?? [])
            .filter { !$0.hasPrefix(".") }
    }

    /// Sends one request straight to the server (the test playing another client).
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let client = try HTTPClient(configuration: HTTPClientConfiguration(credentials: .of(token, at: baseURL)))
        return try await client.send(request)
    }

    /// `GET` of `path`.
    func get(_ path: String) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .get, url: baseURL + path))
    }

    /// The stored recipe document of `uuid` as a JSON object, or nil when the server has none.
    func recipe(_ uuid: UUID) async throws -> [String: Any]? {
        let response = try await get("/v1/recipes/\(uuid.uuidString.lowercased())")
        guard response.status == 200 else { return nil }
        return try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
    }

    /// The identifiers listed by `GET /v1/recipes`.
    func listedIdentifiers() async throws -> [String] {
        let response = try await get("/v1/recipes")
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        let recipes = object?["recipes"] as? [[String: Any]] ?? []
        return recipes.compactMap { $0["identifier"] as? String }
    }
}

private let quietLogger = Logger(label: "recipe-sync-tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// Runs `body` against a fresh in-process reference server with `faults` (the `--fault` grammar), stopped after.
/// Without optional requests unless `features` names them: the tests written before them keep proving the requests
/// every server answers; those of the optional requests say so.
/// In `directory` when given (kept after: a restarted server reads what the one before left), else a fresh one.
func withSyncServer(
    faults: [String] = [], token: String? = nil, features: Set<ServerFeature> = [], directory given: String? = nil,
    _ body: (SyncServer) async throws -> Void
) async throws {
    let directory = given ?? FileManager.default.temporaryDirectory
        .appendingPathComponent("recipe-sync-server-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { if given == nil { try? FileManager.default.removeItem(atPath: directory) } }
    let configuration = ReferenceServerConfiguration(
        dataDirectory: directory + "/data", port: 0, token: token, requestLogPath: directory + "/requests.jsonl",
        faults: try faults.map { spec in try FaultRule.parse(spec) }, synchronousImageWrites: false, features: features)
    let running = try await ReferenceServer(configuration: configuration, logger: quietLogger).start()
    let server = SyncServer(running: running, directory: directory, token: token)
    do {
        try await body(server)
    } catch {
        await running.stop()
        throw error
    }
    await running.stop()
}

// MARK: - Client

/// One client home: a temporary folder, its store, and runs against a server.
final class ClientHome: @unchecked Sendable {
    // @unchecked Sendable: both stored properties are set once in `init` and never replaced; the store is Sendable
    // and the temporary folder only deletes itself on `deinit`.
    let folder = TemporaryDirectory()
    let store: RecipeStore

    init() throws { store = try RecipeStore(home: folder.home) }

    /// Another store on the same home (what another `recipes` process sees).
    func otherProcessView() throws -> RecipeStore { try RecipeStore(home: folder.home) }

    var mediaFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store.home.mediaURL.path)) ?? []).filter { $0 != ".lock" }
    }

    var outboxFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store.home.outboxURL.path)) ?? []
    }

    /// Creates a recipe with an ingredient and a step, then `edits` more edits, and an image of `image` bytes.
    @discardableResult
    func makeRecipe(_ title: String, image: [UInt8]? = nil, edits: Int = 0) throws -> Recipe {
        let recipe = try store.create(title: title)
        try store.apply(.addIngredient("2 tomatoes"), to: recipe.id)
        try store.apply(.addStep("Chop."), to: recipe.id)
        for index in 0..<edits { try store.apply(.description("edit \(index)"), to: recipe.id) }
        if let image { try attach(image, to: recipe.id) }
        return try store.recipe(id: recipe.id)
    }

    /// Attaches a copy of `bytes` to recipe `id`.
    func attach(_ bytes: [UInt8], to id: Int64) throws {
        let path = folder.file("image-\(UUID().uuidString).png", bytes)
        let staged = try store.media.stage(from: path)
        try store.apply(.setImage(staged), to: id)
    }

    func recipe(_ id: Int64) throws -> Recipe { try store.recipe(id: id) }

    /// Settings for a run against `server` with quick retries and cancellation polls.
    func settings(
        _ server: SyncServer, token: String? = nil, probe: ConnectProbe = .constant(true),
        baseDelay: Duration = .milliseconds(5), leaseDuration: TimeInterval = 60
    ) -> SyncSettings {
        SyncSettings(  // no ServerAPI (it refused the base URL) makes a run with no server: a failure the test reports
            api: ServerAPI(baseURL: server.baseURL), token: token ?? server.token, probe: probe, random: FixedRandomSource(1),
            leaseDuration: leaseDuration, pollInterval: .milliseconds(10), baseDelay: baseDelay, maxDelay: .seconds(1),
            networkPollInterval: .milliseconds(20))
    }

    /// Prepares one sync run.
    ///
    /// Push only unless told otherwise: these runs are about uploads, and the pull's requests would be in the way
    /// of their request logs (`TwoWaySyncTests` pulls).
    func makeRun(
        _ server: SyncServer, ids: [Int64]? = nil, jobs: Int = 4, maxWait: Duration = .seconds(30),
        waitForNetwork: Duration = .zero, token: String? = nil, probe: ConnectProbe = .constant(true),
        baseDelay: Duration = .milliseconds(5), leaseDuration: TimeInterval = 60, direction: SyncOptions.Direction = .pushOnly,
        recorder: EventRecorder
    ) -> SyncRun {
        SyncRun(
            store: store,
            settings: settings(server, token: token, probe: probe, baseDelay: baseDelay, leaseDuration: leaseDuration),
            options: SyncOptions(ids: ids, jobs: jobs, maxWait: maxWait, waitForNetwork: waitForNetwork, direction: direction),
            emit: recorder.emit)
    }

    /// Runs one sync to its end (push only unless told otherwise).
    func sync(
        _ server: SyncServer, ids: [Int64]? = nil, jobs: Int = 4, maxWait: Duration = .seconds(30),
        token: String? = nil, probe: ConnectProbe = .constant(true),
        baseDelay: Duration = .milliseconds(5), direction: SyncOptions.Direction = .pushOnly,
        recorder: EventRecorder = EventRecorder()
    ) async throws -> SyncSummary {
        try await makeRun(
            server, ids: ids, jobs: jobs, maxWait: maxWait, token: token, probe: probe, baseDelay: baseDelay,
            direction: direction, recorder: recorder
        ).run()
    }

    /// A raw column of recipe `id` (for bookkeeping the model does not expose).
    func column<T: DatabaseValueConvertible>(_ name: String, of id: Int64, as type: T.Type = T.self) throws -> T? {
        let queue = try DatabaseQueue(path: store.home.databaseURL.path)
        defer { try? queue.close() }
        return try queue.read { db in try T.fetchOne(db, sql: "SELECT \(name) FROM recipes WHERE id = ?", arguments: [id]) }
    }
}

/// How long `body` takes.
func elapsed(_ body: () async throws -> Void) async rethrows -> Duration {
    let start = ContinuousClock.now
    try await body()
    return ContinuousClock.now - start
}

extension Duration {
    var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
