import Foundation
import Testing
import ReferenceServer

@Suite("recipes-server command line")
struct CommandTests {
    @Test("a bad --fault is a usage error naming the SPEC")
    func badFault() {
        #expect(throws: (any Error).self) {
            _ = try RecipesServerCommand.parseAsRoot(["--data", "/tmp/x", "--fault", "PUT /x: explode"])
        }
        do {
            _ = try RecipesServerCommand.parseAsRoot(["--data", "/tmp/x", "--fault", "PUT /x: explode"])
        } catch {
            #expect(RecipesServerCommand.exitCode(for: error).rawValue == 64)
            #expect(RecipesServerCommand.message(for: error).contains("PUT /x: explode"))
        }
    }

    @Test("--help documents the --fault syntax")
    func help() {
        let help = RecipesServerCommand.helpMessage()
        #expect(help.contains("lost-ack"))
        #expect(help.contains("truncate=SIZE") && help.contains("throttle=SIZE"))
        #expect(help.contains("retry-after"))
        #expect(help.contains("--request-log"))
    }

    @Test("the timeout options parse durations and sizes into the server's timeouts; the defaults are 60s, 30s, 1KiB/s, 10s")
    func timeoutOptions() throws {
        let defaults = try RecipesServerCommand.parseAsRoot(["--data", "/tmp/x"]) as? RecipesServerCommand
        #expect(try defaults?.timeouts() == ServerTimeouts.standard)
        #expect(ServerTimeouts.standard == ServerTimeouts(idle: .seconds(60), body: .seconds(30), minimumBodyRate: 1024, drain: .seconds(10)))
        let custom = try RecipesServerCommand.parseAsRoot(["--data", "/tmp/x", "--idle-timeout", "500ms", "--body-timeout", "1.5s",
                                                          "--min-body-rate", "0", "--drain-timeout", "2m"]) as? RecipesServerCommand
        #expect(try custom?.timeouts() == ServerTimeouts(idle: .milliseconds(500), body: .milliseconds(1500), minimumBodyRate: 0, drain: .seconds(120)))
    }

    @Test("a timeout that is zero, negative or not a duration is a usage error naming the option", arguments: [
        ["--idle-timeout", "0s"], ["--body-timeout", "ten"], ["--drain-timeout", "5"], ["--min-body-rate", "-1"], ["--idle-timeout", "-2s"],
    ])
    func badTimeout(arguments: [String]) {
        do {
            _ = try RecipesServerCommand.parseAsRoot(["--data", "/tmp/x"] + arguments)
            Issue.record("\(arguments) was accepted")
        } catch {
            #expect(RecipesServerCommand.exitCode(for: error).rawValue == 64)
            #expect(RecipesServerCommand.message(for: error).contains(arguments[0]))
        }
    }

    @Test("--help documents the timeout options, their defaults and the 408 and 431 answers")
    func timeoutHelp() {
        let help = RecipesServerCommand.helpMessage()
        for text in ["--idle-timeout", "--body-timeout", "--min-body-rate", "--drain-timeout", "(default: 60s)", "(default: 1KiB)", "408", "431"] {
            #expect(help.contains(text), "\(text)")
        }
    }

    @Test("the built binary with --port 0 prints exactly one 'listening on' line with its port, serves, and exits 0 on SIGTERM")
    func binary() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-server-bin-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await Self.launch(["--data", directory, "--port", "0", "--token", "hidden-token-123"])
        let process = server.process
        #expect(server.line.hasPrefix("listening on http://127.0.0.1:"))
        let port = try #require(server.port)
        #expect(await RawHTTPClient.exchange(port: port, method: "GET", path: "/v1/health").status == 200)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let rest = server.stdout.fileHandleForReading.readDataToEndOfFile()
        #expect(rest.isEmpty)
        let logs = String(decoding: server.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!logs.contains("hidden-token-123"))
        // The terminal's first line is ours: the framework's own "Server started" notice is not printed.
        #expect(logs.isEmpty, "\(logs)")
    }

    @Test("without --token the binary requires the token from RECIPES_SERVER_TOKEN")
    func tokenFromEnvironment() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-server-env-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await Self.launch(["--data", directory, "--port", "0"], environment: ["RECIPES_SERVER_TOKEN": "env-token-456"])
        defer { server.process.terminate(); server.process.waitUntilExit() }
        let port = try #require(server.port, "no listening line: \(server.line)")
        #expect(await RawHTTPClient.exchange(port: port, method: "GET", path: "/v1/recipes").status == 401)
        #expect(await RawHTTPClient.exchange(port: port, method: "GET", path: "/v1/recipes",
                                             headers: ["Authorization": "Bearer env-token-456"]).status == 200)
    }

    @Test("--token wins over RECIPES_SERVER_TOKEN, which is used only when --token is absent; --help names it")
    func effectiveToken() {
        #expect(RecipesServerCommand.effectiveToken(option: "a", environment: ["RECIPES_SERVER_TOKEN": "b"]) == "a")
        #expect(RecipesServerCommand.effectiveToken(option: nil, environment: ["RECIPES_SERVER_TOKEN": "b"]) == "b")
        #expect(RecipesServerCommand.effectiveToken(option: nil, environment: [:]) == nil)
        #expect(RecipesServerCommand.helpMessage().contains("RECIPES_SERVER_TOKEN"))
    }

    /// A started `recipes-server` binary and its first stdout line.
    struct Launched {
        let process: Process
        let stdout: Pipe
        let stderr: Pipe
        let line: String
        /// The port of the "listening on" line, if it came.
        var port: Int? { Int(line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? "") }
    }

    /// Starts the built binary and reads its first stdout line; a binary that prints nothing for 20 s is killed,
    /// so the test fails (empty line) instead of hanging.
    static func launch(_ arguments: [String], environment: [String: String] = [:]) async throws -> Launched {
        let binary = try #require(Self.builtBinary(), "build the recipes-server product first (swift build --product recipes-server)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "RECIPES_SERVER_TOKEN" }
            .merging(environment) { _, new in new }
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            kill(pid, SIGKILL)
        }
        let line = await Task.detached { () -> String in
            var bytes = Data()
            while !bytes.contains(UInt8(ascii: "\n")) {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                bytes.append(chunk)
            }
            return String(decoding: bytes, as: UTF8.self)
        }.value
        watchdog.cancel()
        return Launched(process: process, stdout: stdout, stderr: stderr, line: line)
    }

    /// `recipes-server` next to this test bundle, in the same build directory.
    static func builtBinary() -> String? {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<5 {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("recipes-server").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
