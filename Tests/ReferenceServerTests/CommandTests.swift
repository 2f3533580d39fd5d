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
        #expect(help.contains("retry-after"))
        #expect(help.contains("--request-log"))
    }

    @Test("the built binary with --port 0 prints exactly one 'listening on' line with its port, serves, and exits 0 on SIGTERM")
    func binary() async throws {
        let binary = try #require(Self.builtBinary(), "build the recipes-server product first (swift build --product recipes-server)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-server-bin-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--data", directory, "--port", "0", "--token", "hidden-token-123"]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let line = await Task.detached { () -> String in
            var bytes = Data()
            while !bytes.contains(UInt8(ascii: "\n")) {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                bytes.append(chunk)
            }
            return String(decoding: bytes, as: UTF8.self)
        }.value
        #expect(line.hasPrefix("listening on http://127.0.0.1:"))
        let port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? ""))
        #expect(await RawHTTPClient.exchange(port: port, method: "GET", path: "/v1/health").status == 200)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let rest = stdout.fileHandleForReading.readDataToEndOfFile()
        #expect(rest.isEmpty)
        let logs = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!logs.contains("hidden-token-123"))
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
