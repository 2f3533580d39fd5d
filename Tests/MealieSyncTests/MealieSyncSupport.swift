import Foundation
import Locking
import MealieAPI
import MealieTestSupport
import RecipesTestSupport
import Transport
#if canImport(Glibc)
import Glibc
#endif

/// What a run of the debug `recipes` binary left.
struct RecipesRun: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// A home of `recipes` set up for the test Mealie (kind mealie, the URL, the token given on standard input).
struct MealieHome {
    let directory = TemporaryDirectory()
    var path: String { directory.homePath }

    init(url: String, token: String) throws {
        for (arguments, input) in [(["config", "set", "server.kind", "mealie"], ""), (["config", "set", "server.url", url], ""),
                                   (["config", "set", "server.token", "-"], token + "\n")] {
            let run = try self.run(arguments, input: input)
            guard run.status == 0 else { throw MealiePeer.PeerError(message: "\(arguments): \(run)") }
        }
    }

    /// Runs `recipes --home <home> arguments`, `input` on standard input.
    @discardableResult
    func run(_ arguments: [String], input: String = "") throws -> RecipesRun {
        let process = try start(arguments, input: input)
        return process.wait()
    }

    /// Starts `recipes --home <home> arguments` without waiting.
    func start(_ arguments: [String], input: String = "") throws -> RunningRecipes {
        try RunningRecipes(["--home", path] + arguments, input: input)
    }

    /// The recipe's `show --json` object.
    func show(_ id: String) throws -> [String: Any] {
        let run = try self.run(["show", id, "--json"])
        guard run.status == 0, let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] else {
            throw MealiePeer.PeerError(message: "show \(id): \(run)")
        }
        return object
    }

    /// `status --json`.
    func status() throws -> [[String: Any]] {
        let run = try self.run(["status", "--json"])
        guard run.status == 0, let list = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] else {
            throw MealiePeer.PeerError(message: "status: \(run)")
        }
        return list
    }

    /// The `status --json` row of recipe `uuid`, nil when the home has none.
    func row(_ uuid: String) throws -> [String: Any]? {
        try status().first { $0["uuid"] as? String == uuid }
    }

    /// The state of recipe `uuid` (`synced`, `pending`, …), nil when the home has none.
    func state(_ uuid: String) throws -> String? {
        try row(uuid)?["state"] as? String
    }

    /// The files left in the home's `outbox/` and the temporary files left in `images/` and `media/` (names starting
    /// with a dot): none once a sync ended.
    func leftovers() -> [String] {
        var left: [String] = []
        let files = FileManager.default
        for folder in ["outbox", "images", "media"] {
            let names = (try? files.contentsOfDirectory(atPath: "\(path)/\(folder)")) ?? []
            left += names.filter { folder == "outbox" || $0.hasPrefix(".") && $0 != ".lock" }.map { "\(folder)/\($0)" }
        }
        return left
    }
}

/// The debug `recipes` running as a child process, its output drained by threads.
final class RunningRecipes: @unchecked Sendable {
    // @unchecked Sendable: `process` is configured and started in `init`, then only waited for and signalled
    // (Process does these under its own lock); the output is behind `output`.
    let process = Process()
    private let output = Locked<(out: Data, err: Data)>((Data(), Data()))
    private let readers = DispatchGroup()

    init(_ arguments: [String], input: String) throws {
        process.executableURL = builtProduct("recipes")
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": FileManager.default.temporaryDirectory.path, "LANG": "C.UTF-8"]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        for (handle, isOut) in [(stdout.fileHandleForReading, true), (stderr.fileHandleForReading, false)] {
            readers.enter()
            Thread { [self] in
                let data = handle.readDataToEndOfFile()
                output.withLock { if isOut { $0.out = data } else { $0.err = data } }
                readers.leave()
            }.start()
        }
        let writer = stdin.fileHandleForWriting
        Thread {
            writer.write(Data(input.utf8))
            try? writer.close()
        }.start()
    }

    /// Waits for the end.
    func wait() -> RecipesRun {
        process.waitUntilExit()
        readers.wait()
        let (out, err) = output.withLock { $0 }
        return RecipesRun(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                          stderr: String(decoding: err, as: UTF8.self))
    }

    /// SIGKILL.
    func kill9() { kill(process.processIdentifier, SIGKILL) }
}

extension MealieSession {
    /// The recipes Mealie lists whose name starts with `prefix` (a duplicate made by a retry would be "<name> (1)").
    func count(_ prefix: String) async throws -> Int { try await recipes(named: prefix).count }

    /// Recipe `uuid`'s JSON in Mealie (its id is the uuid: `recipes` makes version-4 uuids).
    func recipe(_ uuid: String) async throws -> [String: Any]? {
        try await recipeJSON(id: try require(UUID(uuidString: uuid), "uuid"))
    }

    /// Changes recipe `uuid` in Mealie by a `PATCH` of `body`, as Mealie's web app would.
    func patch(_ uuid: String, _ body: [String: Any]) async throws {
        let id = try require(UUID(uuidString: uuid), "uuid")
        let response = try await send(server.patchRecipe(id: id, body: try JSONSerialization.data(withJSONObject: body)))
        guard response.status == 200 else {
            throw MealiePeer.PeerError(message: "PATCH answered HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    /// Whether Mealie serves a picture for recipe `uuid` (`original.webp`).
    func servesImage(_ uuid: String) async throws -> Bool {
        let response = try await send(server.image(id: try require(UUID(uuidString: uuid), "uuid")))
        return response.status == 200 && response.body.prefix(4) == Data("RIFF".utf8)
    }
}

/// `#require` for a plain throwing context.
func require<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw MealiePeer.PeerError(message: "no \(what)") }
    return value
}

/// The test PNG (a real image: Mealie converts it with Pillow).
var tinyPNGPath: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("MealieAPITests/Fixtures/tiny.png").path
}
