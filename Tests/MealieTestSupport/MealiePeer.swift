import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// The real Mealie the tests run against: started once per test process through the peer's `mealie-up.sh` (a Mealie
/// 2.0 backend on 127.0.0.1, a fresh data folder), stopped when the process exits, and — should the process die
/// without exiting — by the next start or by `scripts/mealie-tests.sh`, which both read the pid file it leaves.
///
/// The Mealie tests run only when asked (`RECIPES_MEALIE_TESTS=1`, as `make mealie-tests` sets it): a Mealie takes
/// 5–8 s to start (minutes the first time on a machine, to build its Python environment) and about 380 MB.
public enum MealiePeer {
    /// A running Mealie.
    public struct Instance: Sendable, Equatable {
        /// `http://127.0.0.1:<port>`.
        public var url: String
        /// A long-lived API token of its admin user.
        public var token: String
        /// The uvicorn process.
        public var pid: Int32
        /// Its data folder (removed when it is stopped).
        public var dataDirectory: String
    }

    /// Why the Mealie tests do not run here, or nil when they do.
    public static var unavailableReason: String? {
        guard ProcessInfo.processInfo.environment["RECIPES_MEALIE_TESTS"] == "1" else {
            return "the tests against a real Mealie run with `make mealie-tests` (RECIPES_MEALIE_TESTS=1)"
        }
        guard script != nil else {
            return "no Mealie peer: mealie-up.sh is not in \(candidates.joined(separator: ", ")) (set RECIPES_MEALIE_PEER)"
        }
        return nil
    }

    /// Whether the Mealie tests run.
    public static var isEnabled: Bool { unavailableReason == nil }

    /// The Mealie of this test process, started at the first call; every later call gets the same one.
    public static func shared() async throws -> Instance {
        try await starter.instance()
    }

    /// The folders searched for `mealie-up.sh`, in order: `RECIPES_MEALIE_PEER`, `<repo>/../shared/peers/mealie`,
    /// `/work/shared/peers/mealie`.
    public static var candidates: [String] {
        var folders: [String] = []
        if let configured = ProcessInfo.processInfo.environment["RECIPES_MEALIE_PEER"], !configured.isEmpty {
            folders.append(configured)
        }
        folders.append(repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/peers/mealie").path)
        folders.append("/work/shared/peers/mealie")
        return folders
    }

    /// The pid file of the Mealie this worktree's tests started: `RECIPES_MEALIE_PIDFILE`, or
    /// `<repo>/.build/mealie-test-peer.pid` (one per worktree, so that engineers' runs never stop each other's).
    public static var registryPath: String {
        if let configured = ProcessInfo.processInfo.environment["RECIPES_MEALIE_PIDFILE"], !configured.isEmpty {
            return configured
        }
        return repositoryRoot.appendingPathComponent(".build/mealie-test-peer.pid").path
    }

    static var script: String? {
        candidates.map { $0 + "/mealie-up.sh" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private static let starter = Starter()

    /// Starts the Mealie once; concurrent first callers wait for the same start.
    private actor Starter {
        private var started: Task<Instance, any Error>?

        func instance() async throws -> Instance {
            if let started { return try await started.value }
            let task = Task.detached { try MealiePeer.start() }
            started = task
            return try await task.value
        }
    }

    /// Stops a Mealie a killed test process left behind (its pid file), then starts one and records it.
    ///
    /// The data folder is chosen and recorded in the pid file before `mealie-up.sh` runs (it writes the server's
    /// pid into `<data>/mealie.pid` as soon as it launches it), so a test process killed during the start still
    /// leaves enough behind for the next start, or `scripts/mealie-tests.sh`, to stop that Mealie.
    static func start() throws -> Instance {
        guard let script else { throw PeerError(message: unavailableReason ?? "no Mealie peer") }
        stopRecorded()
        try FileManager.default.createDirectory(atPath: (registryPath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        var template = Array("/tmp/mealie-data.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PeerError(message: "cannot make a data folder in /tmp") }
        let data = String(cString: made)
        try "data=\(data)\n".write(toFile: registryPath, atomically: true, encoding: .utf8)
        let logPath = registryPath + ".log"
        let started = ContinuousClock.now
        let (status, output) = try ChildProcess.run(["/bin/bash", "-c", ChildProcess.closingInheritedDescriptors, script],
                                                     environment: ["MEALIE_DATA_DIR": data], standardErrorPath: logPath)
        let values = Self.values(String(decoding: output, as: UTF8.self))
        guard status == 0, let url = values["MEALIE_URL"], let token = values["MEALIE_TOKEN"],
              let pid = values["MEALIE_PID"].flatMap({ Int32($0) })
        else {
            stop(dataDirectory: data, pid: nil)
            forgetRegistry(ifNaming: data)
            throw PeerError(message: "mealie-up.sh failed (status \(status)); see \(logPath)")
        }
        let instance = Instance(url: url, token: token, pid: pid, dataDirectory: data)
        let took = (ContinuousClock.now - started).components
        FileHandle.standardError.write(Data("MealiePeer: Mealie \(url) started in \(took.seconds).\(took.attoseconds / 100_000_000_000_000_000) s\n".utf8))
        try "pid=\(pid)\ndata=\(data)\n".write(toFile: registryPath, atomically: true, encoding: .utf8)
        running.withLock { $0 = instance }
        atexit { MealiePeer.stopAtExit() }
        return instance
    }

    private static let running = Locked<Instance?>(nil)

    /// Stops the Mealie this process started (at exit).
    static func stopAtExit() {
        guard let instance = running.withLock({ current -> Instance? in
            defer { current = nil }
            return current
        }) else { return }
        stop(dataDirectory: instance.dataDirectory, pid: instance.pid)
        forgetRegistry(ifNaming: instance.dataDirectory)
    }

    /// Stops the Mealie the pid file names, if it still runs, and removes its data folder and the pid file.
    static func stopRecorded() {
        guard let text = try? String(contentsOfFile: registryPath, encoding: .utf8) else { return }
        let values = Self.values(text)
        if let data = values["data"] { stop(dataDirectory: data, pid: values["pid"].flatMap { Int32($0) }) }
        try? FileManager.default.removeItem(atPath: registryPath)
    }

    /// Removes the pid file when it still names `dataDirectory` (another test process of this worktree may have
    /// written its own since: that one is not this process's to forget).
    private static func forgetRegistry(ifNaming dataDirectory: String) {
        guard let text = try? String(contentsOfFile: registryPath, encoding: .utf8), values(text)["data"] == dataDirectory else { return }
        try? FileManager.default.removeItem(atPath: registryPath)
    }

    /// Ends the Mealie of `dataDirectory` — `pid`, or the pid mealie-up.sh wrote into the folder at launch when a start
    /// was cut short — if that process is still it: uvicorn serving `mealie.app` with `DATA_DIR` this folder (a
    /// recycled pid, or another engineer's Mealie, is left alone). Then removes the folder when it is one of
    /// mealie-up.sh's (`/tmp/mealie-data.*`), keeping Mealie's log beside the pid file.
    private static func stop(dataDirectory: String, pid: Int32?) {
        let launched = (try? String(contentsOfFile: dataDirectory + "/mealie.pid", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if let pid = pid ?? launched, isMealie(pid, dataDirectory: dataDirectory) { terminate(pid) }
        if (dataDirectory as NSString).lastPathComponent.hasPrefix("mealie-data."), dataDirectory.hasPrefix("/tmp/") {
            let kept = registryPath + ".server.log"
            try? FileManager.default.removeItem(atPath: kept)
            try? FileManager.default.moveItem(atPath: dataDirectory + "/server.log", toPath: kept)
            try? FileManager.default.removeItem(atPath: dataDirectory)
        }
    }

    private static func isMealie(_ pid: Int32, dataDirectory: String) -> Bool {
        func fields(_ name: String) -> [String] {
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/\(name)")) else { return [] }
            return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        }
        let commandLine = fields("cmdline")
        return commandLine.contains { $0.hasSuffix("uvicorn") } && commandLine.contains("mealie.app:app")
            && fields("environ").contains("DATA_DIR=\(dataDirectory)")
    }

    private static func values(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    /// SIGTERM, up to 10 s for the process to end, then SIGKILL.
    private static func terminate(_ pid: Int32) {
        guard kill(pid, SIGTERM) == 0 else { return }
        for _ in 0..<100 {
            if kill(pid, 0) != 0 { return }
            usleep(100_000)
        }
        kill(pid, SIGKILL)
    }

    /// Why the Mealie could not be started.
    public struct PeerError: Error, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        /// Creates an error.
        public init(message: String) { self.message = message }
        public var description: String { message }
    }
}
