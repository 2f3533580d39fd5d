import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The user's crontab, read with `crontab -l` and replaced with `crontab -` (the new text on standard input), through
/// the `crontab` program found on `PATH`.
///
/// `crontab` runs with its standard streams on unlinked temporary files, so that neither a large crontab nor a
/// `crontab` that exits early can block or signal this process.
struct Crontab {
    /// The `crontab` program.
    let program: URL
    /// The environment `crontab` runs with.
    private let environment: [String: String]

    /// Finds `crontab` on the `PATH` of `environment` (`/usr/bin:/bin` when unset); throws a message saying how to
    /// install it when there is none.
    init(environment: [String: String]) throws(CommandLineError) {
        let path = environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("crontab") }
        guard let program = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CommandLineError("crontab not found: install cron, e.g. `apt-get install cron`")
        }
        self.program = program
        var environment = environment
        environment["LC_ALL"] = "C"  // "no crontab for <user>" is recognised in English
        self.environment = environment
    }

    /// The crontab's text, byte for byte; empty when the user has none (`crontab -l` says "no crontab for <user>").
    func read() throws(CommandLineError) -> [UInt8] {
        let result = try run(["-l"])
        if result.status == 0 { return result.output }
        if result.status == 1 && result.errors.lowercased().contains("no crontab for") { return [] }
        throw failure("crontab -l", result)
    }

    /// Replaces the crontab with `text` (which must end with a newline), or removes it (`crontab -r`) when `text` is
    /// empty, so that uninstalling the only line leaves no crontab rather than an empty one.
    func write(_ text: [UInt8]) throws(CommandLineError) {
        if text.isEmpty {
            let result = try run(["-r"])
            if result.status == 0 || result.errors.lowercased().contains("no crontab for") { return }
            throw failure("crontab -r", result)
        }
        let result = try run(["-"], input: text)
        guard result.status == 0 else { throw failure("crontab -", result) }
    }

    /// What one run of `crontab` answered.
    struct Answer {
        /// The exit status (128 + the signal when it was killed).
        var status: Int32
        /// Its standard output.
        var output: [UInt8]
        /// Its standard error, as text.
        var errors: String
    }

    /// Runs `crontab arguments` with `input` on standard input and waits for it.
    private func run(_ arguments: [String], input: [UInt8] = []) throws(CommandLineError) -> Answer {
        do {
            let stdin = try ScratchFile(), stdout = try ScratchFile(), stderr = try ScratchFile()
            try stdin.handle.write(contentsOf: Data(input))
            try stdin.rewind()
            let process = Process()
            process.executableURL = program
            process.arguments = arguments
            process.environment = environment
            process.standardInput = stdin.handle
            process.standardOutput = stdout.handle
            process.standardError = stderr.handle
            try process.run()
            process.waitUntilExit()
            let status = process.terminationReason == .uncaughtSignal
                ? 128 + process.terminationStatus : process.terminationStatus
            return Answer(
                status: status, output: try stdout.contents(), errors: String(decoding: try stderr.contents(), as: UTF8.self))
        } catch {
            throw CommandLineError("could not run \(program.path) \(arguments.joined(separator: " ")): \(Self.describe(error))")
        }
    }

    /// The error for a failed run: the command, its exit status and `crontab`'s own message on one line.
    private func failure(_ command: String, _ answer: Answer) -> CommandLineError {
        let message = answer.errors.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
        return CommandLineError(
            "`\(command)` failed (exit status \(answer.status))" + (message.isEmpty ? "" : ": \(message)"))
    }

    /// An error as the words of its `errno` when it has one, else its description.
    static func describe(_ error: any Error) -> String {
        ErrnoError.code(of: error).map(ErrnoError.describe) ?? (error as NSError).localizedDescription
    }
}

/// An anonymous temporary file (created with `mkstemp` under the temporary directory and unlinked at once) that
/// serves as one of a child process's standard streams.
private final class ScratchFile {
    /// The open file; closed when the value is released.
    let handle: FileHandle

    /// Creates the file, mode 0600, already unlinked.
    init() throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/recipes-crontab.XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        unlink(template)
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Moves back to the start of the file.
    func rewind() throws {
        guard lseek(handle.fileDescriptor, 0, SEEK_SET) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Everything the file holds.
    func contents() throws -> [UInt8] {
        try rewind()
        return Array(try handle.readToEnd() ?? Data())
    }
}

extension CrontabEntry {
    /// The absolute path of the running executable (`/proc/self/exe`, resolved), which the line runs.
    static func runningExecutable() throws(CommandLineError) -> String {
        do {
            let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            guard path.hasPrefix("/"), !path.hasSuffix(" (deleted)") else {
                throw CommandLineError("the running recipes executable (\(path)) is gone; run `recipes cron install` from the installed binary")
            }
            return path
        } catch let error as CommandLineError {
            throw error
        } catch {
            throw CommandLineError("cannot find the running recipes executable through /proc/self/exe: \(Crontab.describe(error))")
        }
    }

    /// The home directory of the account this process runs as, from the password database: the `HOME` cron sets.
    static func accountHome() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }
}
