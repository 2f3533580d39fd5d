import Foundation
import Locking
import RecipesTestSupport
@testable import RecipeStore
@testable import RecipesCommandLine

/// A console that keeps what was written, for assertions.
final class CapturingConsole: Console {
    private let buffers = Locked<(out: String, err: String)>(("", ""))
    func out(_ text: String) { buffers.withLock { $0.out += text } }
    func err(_ text: String) { buffers.withLock { $0.err += text } }
    var stdout: String { buffers.withLock { $0.out } }
    var stderr: String { buffers.withLock { $0.err } }
    func reset() { buffers.withLock { $0 = ("", "") } }
}

/// The result of running the built `recipes` binary.
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the built `recipes` binary with `arguments`, feeding `input` on stdin, with a clean environment; `executable`
/// runs another program instead (e.g. `setpriv` starting `recipes` as another user).
func runRecipes(
    _ arguments: [String], input: String = "", environment: [String: String] = [:], binary: String = "recipes",
    executable: URL? = nil
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable ?? builtProduct(binary)
    process.arguments = arguments
    var env = ["PATH": "/usr/bin:/bin", "HOME": FileManager.default.temporaryDirectory.path, "LANG": "C.UTF-8"]
    env.merge(environment) { $1 }
    process.environment = env
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let writer = Thread {
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
    }
    writer.start()
    let errData = Locked(Data())
    let errReader = Thread { errData.withLock { $0 = stderr.fileHandleForReading.readDataToEndOfFile() } }
    errReader.start()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while errReader.isExecuting || !errReader.isFinished { usleep(1000) }
    return ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
        stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
}


/// What a person at a terminal saw when a command ran: every byte the program wrote to its pseudo-terminal, escape
/// sequences included (line ends as the terminal shows them, `\r\n`), and its exit status.
struct TerminalResult {
    var status: Int32
    var screen: String
}

/// Runs the built `recipes` binary with `arguments` on a pseudo-terminal `columns` wide (through
/// `Tests/Fixtures/pty_run.py`), with the clean environment of `runRecipes` plus `environment`.
func runOnTerminal(
    _ arguments: [String], environment: [String: String] = [:], columns: Int = 100, binary: String = "recipes"
) throws -> TerminalResult {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pty_run.py").path
    let result = try runRecipes(
        [script, String(columns), builtProduct(binary).path] + arguments,
        environment: ["TERM": "xterm"].merging(environment) { $1 }, executable: URL(fileURLWithPath: "/usr/bin/python3"))
    guard let exit = result.stdout.range(of: "\nEXIT ", options: .backwards),
        let status = Int32(result.stdout[exit.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines))
    else {
        throw CommandLineError("pty_run.py did not report an exit status: \(result.stdout) \(result.stderr)")
    }
    return TerminalResult(status: status, screen: String(result.stdout[..<exit.lowerBound]))
}
