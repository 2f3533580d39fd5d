import Foundation
import GRDB
import Locking
import RecipesTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Helpers for driving the built `recipes` and `recipes-server` binaries as separate processes.


/// Sleeps the calling thread.
func pause(_ seconds: Double) { usleep(useconds_t(max(0, seconds) * 1_000_000)) }

/// Seconds since an arbitrary monotonic origin.
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The bound for "at once" in these tests: a stop the code makes at once (a cancel, a signal, a run with nothing to
/// wait for) ends the process in well under a second even with both cores busy, and one that did not happen would
/// wait out what the test set up: a stalled transfer's 30-s low-speed limit, a 60-s retry wait, the 30-s `--max-wait`.
/// Half of the shortest of those tells the two apart on a loaded machine without measuring how fast the stop is.
let stopsAtOnce: Double = 15

/// Polls `condition` every `interval` seconds until it holds or `timeout` seconds have passed; true when it held.
func waitUntil(timeout: Double, interval: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = monotonicNow() + timeout
    while true {
        if try condition() { return true }
        if monotonicNow() >= deadline { return false }
        pause(interval)
    }
}

/// What a finished process left.
struct ToolResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double
    var description: String { "exit \(status) after \(String(format: "%.2f", seconds)) s\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// A child process whose stdout and stderr are pipes drained by reader threads; killed (SIGKILL) when released
/// while still running, so that no test leaves a process behind.
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` (Foundation's `Process`, not Sendable) is configured and started in `init`;
    // afterwards it is only asked for its state, signalled and waited for, which `Process` does under its own lock;
    // the collected output is behind `output`.
    let process = Process()
    let started: Double
    private let output = Locked<(out: Data, err: Data)>((Data(), Data()))
    private let readers = DispatchGroup()

    init(_ executable: URL, _ arguments: [String], environment: [String: String], input: String? = nil) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let inPipe: Pipe? = input == nil ? nil : Pipe()
        if let inPipe { process.standardInput = inPipe } else { process.standardInput = FileHandle.nullDevice }
        started = monotonicNow()
        try process.run()
        drain(outPipe.fileHandleForReading, toStdout: true)
        drain(errPipe.fileHandleForReading, toStdout: false)
        if let inPipe, let input {
            let handle = inPipe.fileHandleForWriting
            Thread {
                handle.write(Data(input.utf8))
                try? handle.close()
            }.start()
        }
    }

    private func drain(_ handle: FileHandle, toStdout: Bool) {
        readers.enter()
        Thread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                output.withLock { if toStdout { $0.out.append(data) } else { $0.err.append(data) } }
            }
            readers.leave()
        }.start()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var stdout: String { String(decoding: output.withLock { $0.out }, as: UTF8.self) }
    var stderr: String { String(decoding: output.withLock { $0.err }, as: UTF8.self) }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) { if process.isRunning { kill(pid, signal) } }

    /// Waits up to `timeout` seconds for the process to end; its exit status (128 + signal when a signal ended it),
    /// or nil when it still runs.
    func wait(timeout: Double) -> Int32? {
        let deadline = monotonicNow() + timeout
        while process.isRunning {
            if monotonicNow() >= deadline { return nil }
            usleep(5_000)
        }
        _ = readers.wait(timeout: .now() + 5)
        return exitStatus
    }

    /// The exit status of the ended process (128 + signal when a signal ended it).
    var exitStatus: Int32 {
        process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Waits up to `timeout` seconds; a process still running then is killed and the test fails.
    func result(timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) -> ToolResult {
        guard let status = wait(timeout: timeout) else {
            Issue.record("\(process.arguments ?? []) still ran after \(timeout) s; killed", sourceLocation: sourceLocation)
            kill(pid, SIGKILL)
            process.waitUntilExit()
            _ = readers.wait(timeout: .now() + 5)
            return ToolResult(status: -1, stdout: stdout, stderr: stderr, seconds: monotonicNow() - started)
        }
        return ToolResult(status: status, stdout: stdout, stderr: stderr, seconds: monotonicNow() - started)
    }

    /// Kills the process (SIGKILL) if it still runs and waits for it.
    func killNow() {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { killNow() }
}

// MARK: - The reference server

/// One line of the server's `--request-log`.
struct LoggedRequest: CustomStringConvertible {
    var method: String
    var path: String
    var status: Int?
    var start: Date
    var end: Date
    var bytesReceived: Int
    var bodyComplete: Bool
    var fault: String?

    /// The last path component (a uuid or an image SHA-256).
    var key: String { String(path.split(separator: "/").last ?? "").lowercased() }
    var isImage: Bool { path.hasPrefix("/v1/images/") }
    var isRecipe: Bool { path.hasPrefix("/v1/recipes/") }
    var succeeded: Bool { status.map { (200..<300).contains($0) } ?? false }

    /// Whether the two requests were being handled at the same moment (millisecond stamps; touching is no overlap).
    func overlaps(_ other: LoggedRequest) -> Bool { start < other.end && other.start < end }

    var description: String {
        "\(method) \(path) \(status.map(String.init) ?? "-") [\(Self.stamp(start)) – \(Self.stamp(end))] fault=\(fault ?? "-")"
    }

    static func stamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func parse(line: Substring) -> LoggedRequest? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let method = object["method"] as? String, let path = object["path"] as? String,
              let start = (object["start"] as? String).flatMap(formatter.date(from:)),
              let end = (object["end"] as? String).flatMap(formatter.date(from:))
        else { return nil }
        return LoggedRequest(
            method: method, path: path, status: (object["status"] as? NSNumber)?.intValue, start: start, end: end,
            bytesReceived: (object["bytesReceived"] as? NSNumber)?.intValue ?? 0,
            bodyComplete: (object["bodyComplete"] as? Bool) ?? false, fault: object["fault"] as? String)
    }
}

/// A recipe as the server stores it.
struct ServerRecipe {
    var identifier: String
    var version: Int
    var name: String
}

/// A `recipes-server` child process on a free port, with its request log; stopped (SIGTERM, then SIGKILL) when
/// released.
final class ServerProcess {
    let child: ChildProcess
    let port: Int
    let dataDirectory: URL
    let requestLogURL: URL

    /// The address it listens on.
    let host: String

    /// `http://HOST:PORT`
    var url: String { "http://\(host):\(port)" }

    /// Without optional requests unless `features` names them (`--features`): the tests written before them keep
    /// proving the requests every server answers. On a free port unless `port` names one (a server started again).
    init(data: URL, requestLog: URL, token: String? = nil, faults: [String] = [], host: String = "127.0.0.1",
         port: Int = 0, features: String = "none", sourceLocation: SourceLocation = #_sourceLocation) throws {
        dataDirectory = data
        requestLogURL = requestLog
        self.host = host
        var arguments = ["--data", data.path, "--host", host, "--port", String(port), "--request-log", requestLog.path, "--no-fsync",
                         "--features", features]
        if let token { arguments += ["--token", token] }
        for fault in faults { arguments += ["--fault", fault] }
        child = try ChildProcess(
            builtProduct("recipes-server"), arguments,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": data.deletingLastPathComponent().path])
        var port: Int?
        let child = self.child
        _ = waitUntil(timeout: 60, interval: 0.01) {
            let text = child.stdout
            if let line = text.split(separator: "\n", omittingEmptySubsequences: false).first, text.contains("\n") {
                let prefix = "listening on http://\(host):"
                if line.hasPrefix(prefix) { port = Int(line.dropFirst(prefix.count)) }
                return true
            }
            return !child.isRunning
        }
        guard let port else {
            child.killNow()
            throw ServerStartFailure(stdout: child.stdout, stderr: child.stderr)
        }
        self.port = port
    }

    struct ServerStartFailure: Error, CustomStringConvertible {
        var stdout: String
        var stderr: String
        var description: String { "recipes-server did not start: stdout \(stdout) stderr \(stderr)" }
    }

    /// Stops the server gracefully (SIGTERM; SIGKILL after 5 s).
    func stop() {
        guard child.isRunning else { return }
        child.send(SIGTERM)
        if child.wait(timeout: 5) == nil { child.killNow() }
    }

    deinit { stop() }

    /// Every request logged so far, in log order, without the clients' `GET /v1/health` (each run's ask for the
    /// server's optional requests, which the tests of other requests are not about).
    func requests() -> [LoggedRequest] {
        allRequests().filter { !($0.method == "GET" && $0.path == "/v1/health") }
    }

    /// Every request logged so far, in log order.
    func allRequests() -> [LoggedRequest] {
        guard let data = FileManager.default.contents(atPath: requestLogURL.path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap(LoggedRequest.parse(line:))
    }

    /// The recipes the server stores (read from its database).
    func storedRecipes() throws -> [ServerRecipe] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(
            path: dataDirectory.appendingPathComponent("server.sqlite3").path, configuration: configuration)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT identifier, version, name FROM recipe").map { row in
                ServerRecipe(
                    identifier: (row["identifier"] as String).lowercased(), version: row["version"],
                    name: row["name"])
            }
        }
    }

    /// The image files the server stores (names are SHA-256s).
    func storedImageFiles() -> [String] {
        let images = dataDirectory.appendingPathComponent("images").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: images)) ?? []).filter { !$0.hasPrefix(".") }
    }
}

// MARK: - The client

/// A recipe's row in the client database.
struct ClientRecipe {
    var id: Int64
    var uuid: String
    var title: String
    var state: String
    var revision: Int
    var syncedRevision: Int
    var attempts: Int
    var imageSHA256: String?
    var leaseOwner: String?
    /// The server version the draft is based on (nil: the server never acknowledged it).
    var serverVersion: Int?
}

/// One recipes home in a temporary folder, with the environment the binaries run under.
final class Client {
    let directory = TemporaryDirectory()
    var serverURL: String?
    var token: String?
    /// An extra CA file the client trusts (`RECIPES_CA_BUNDLE`).
    var caBundle: String?
    /// More variables for every command (`http_proxy`, `no_proxy`…).
    var extraEnvironment: [String: String] = [:]

    init(serverURL: String? = nil) { self.serverURL = serverURL }

    var homePath: String { directory.homePath }
    var homeURL: URL { URL(fileURLWithPath: homePath) }
    var folder: URL { directory.url }

    /// A clean environment: no terminal, a private HOME, this home and server.
    var environment: [String: String] {
        var env = [
            "PATH": "/usr/bin:/bin", "HOME": directory.url.path, "LANG": "C.UTF-8", "RECIPES_HOME": homePath,
            "XDG_CONFIG_HOME": directory.url.appendingPathComponent("xdg-config").path,
        ]
        if let serverURL { env["RECIPES_SERVER_URL"] = serverURL }
        if let token { env["RECIPES_TOKEN"] = token }
        if let caBundle { env["RECIPES_CA_BUNDLE"] = caBundle }
        return env.merging(extraEnvironment) { $1 }
    }

    /// Starts `recipes ARGUMENTS` without waiting for it.
    func start(_ arguments: [String], input: String? = nil) throws -> ChildProcess {
        try ChildProcess(builtProduct("recipes"), arguments, environment: environment, input: input)
    }

    /// Runs the python3 script at `path` with the `recipes` binary and this home as its arguments, in this client's
    /// environment, to its end (at most `timeout` seconds).
    func runPython(_ path: String, timeout: Double = 60,
                   sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolResult {
        try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"), [path, builtProduct("recipes").path, homePath],
            environment: environment, input: nil
        ).result(timeout: timeout, sourceLocation: sourceLocation)
    }

    /// Runs `recipes ARGUMENTS` to its end (at most `timeout` seconds).
    func run(_ arguments: [String], input: String? = nil, timeout: Double = 60,
             sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolResult {
        try start(arguments, input: input).result(timeout: timeout, sourceLocation: sourceLocation)
    }

    /// Runs a REPL script through `recipes edit`; the test fails unless it exits 0.
    @discardableResult
    func edit(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolResult {
        let result = try run(["edit"], input: lines.joined(separator: "\n") + "\n", sourceLocation: sourceLocation)
        #expect(result.status == 0, "recipes edit: \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// Writes a PNG of `size` bytes into the test folder and returns its path.
    func image(_ name: String, size: Int, seed: Int) -> String {
        // Distinct for every seed: a seed-derived header chunk, then filler.
        var bytes = pngBytes(size: size, seed: UInt8(truncatingIfNeeded: seed))
        withUnsafeBytes(of: UInt32(seed).bigEndian) { raw in
            for (offset, byte) in raw.enumerated() where 8 + offset < bytes.count { bytes[8 + offset] = byte }
        }
        return directory.file(name, bytes)
    }

    /// Creates `count` recipes, each with its own image of `imageSize` bytes (none when 0), in one REPL session.
    func createRecipes(_ count: Int, imageSize: Int, titlePrefix: String = "Recipe",
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        var lines: [String] = []
        let first = (try? rows().count) ?? 0
        for index in 1...count {
            let id = first + index
            lines.append("new \"\(titlePrefix) \(id)\"")
            if imageSize > 0 { lines.append("image set \(id) \(image("image-\(id).png", size: imageSize, seed: id))") }
        }
        try edit(lines, sourceLocation: sourceLocation)
    }

    /// `recipes status --json`, parsed.
    func status(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let result = try run(["status", "--json"], sourceLocation: sourceLocation)
        #expect(result.status == 0, "recipes status --json: \(result)", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [[String: Any]], sourceLocation: sourceLocation)
    }

    /// The status entry of recipe `id`.
    func status(of id: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any]? {
        try status(sourceLocation: sourceLocation).first { ($0["id"] as? NSNumber)?.int64Value == id }
    }

    var databasePath: String { homeURL.appendingPathComponent("recipes.sqlite3").path }

    /// Opens the client database read-only.
    func openDatabase() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: databasePath, configuration: configuration)
    }

    /// Every recipe row of the client database (read-only).
    func rows() throws -> [ClientRecipe] {
        try openDatabase().read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, uuid, title, state, revision, synced_revision, attempts, image_sha256, lease_owner, server_version
                FROM recipes ORDER BY id
                """).map { row in
                ClientRecipe(
                    id: row["id"], uuid: (row["uuid"] as String).lowercased(), title: row["title"],
                    state: row["state"], revision: row["revision"], syncedRevision: row["synced_revision"],
                    attempts: row["attempts"], imageSHA256: row["image_sha256"], leaseOwner: row["lease_owner"],
                    serverVersion: row["server_version"])
            }
        }
    }

    /// The files in `<home>/<folder>` other than `.lock`.
    func leftoverFiles(in folder: String) -> [String] {
        let path = homeURL.appendingPathComponent(folder).path
        return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0 != ".lock" }.sorted()
    }
}

/// A loopback TCP port nothing listens on: bound, noted, closed.
func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    try #require(bound == 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    try #require(named == 0)
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A deterministic generator (SplitMix64) for the test's random pauses.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}

/// Pairs of requests in `requests` that overlap in time.
func overlappingPairs(_ requests: [LoggedRequest]) -> [(LoggedRequest, LoggedRequest)] {
    var pairs: [(LoggedRequest, LoggedRequest)] = []
    for i in requests.indices {
        for j in requests.indices where j > i && requests[i].overlaps(requests[j]) {
            pairs.append((requests[i], requests[j]))
        }
    }
    return pairs
}

/// The NDJSON events of `sync --json` output.
func jsonEvents(_ output: String) -> [[String: Any]] {
    output.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// Prints a measurement when RECIPES_E2E_VERBOSE is set (timings for the report; silent otherwise).
func note(_ text: String) {
    if ProcessInfo.processInfo.environment["RECIPES_E2E_VERBOSE"] != nil { print("[e2e] \(text)") }
}

/// The recipe PUTs for `uuid` answered `201 created` after the first committed one. A lost ack is a committed PUT
/// whose answer was dropped (logged without a status), so every commit after the first must be a `200`.
func createdAgain(_ uuid: String, in requests: [LoggedRequest]) -> [LoggedRequest] {
    let committed = requests.filter {
        $0.method == "PUT" && $0.isRecipe && $0.key == uuid && ($0.succeeded || $0.fault == "lost-ack")
    }.sorted { $0.start < $1.start }
    return committed.dropFirst().filter { $0.status == 201 }
}

extension Client {
    /// Starts a `recipes-server` with its data and request log in this client's folder, and points the client at it.
    func startServer(
        log: String = "requests.log", token: String? = nil, faults: [String] = [], features: String = "none",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ServerProcess {
        let server = try ServerProcess(
            data: folder.appendingPathComponent("server"), requestLog: folder.appendingPathComponent(log),
            token: token, faults: faults, features: features, sourceLocation: sourceLocation)
        serverURL = server.url
        return server
    }
}
