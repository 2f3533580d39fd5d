import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// A program found on `PATH` and run to its end with its standard streams on unlinked temporary files (so that no
/// amount of output can block it or this process, and a program that exits early cannot signal it): `systemctl` and
/// `loginctl` for `recipes service`, `crontab` for `recipes cron`.
struct ExternalProgram {
    /// The program's path.
    let url: URL
    /// The environment it runs with.
    let environment: [String: String]

    /// What one run answered.
    struct Answer: Equatable {
        /// The exit status (128 + the signal when one ended it).
        var status: Int32
        /// Its standard output, byte for byte.
        var bytes: [UInt8]
        /// Its standard error, as text.
        var errors: String

        /// Its standard output, as text.
        var output: String { String(decoding: bytes, as: UTF8.self) }

        /// Standard error (else output) on one line, for a message.
        var message: String {
            let text = errors.isEmpty ? output : errors
            return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.joined(separator: "; ")
        }
    }

    /// `name` on the `PATH` of `environment` (`/usr/bin:/bin` when unset), or nil when there is none.
    init?(named name: String, environment: [String: String]) {
        let path = environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
        guard let url = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            return nil
        }
        self.url = url
        var environment = environment
        environment["LC_ALL"] = "C"  // answers are read in English
        environment["SYSTEMD_PAGER"] = ""
        self.environment = environment
    }

    /// Runs the program with `arguments` and `input` on its standard input, and waits for it.
    func run(_ arguments: [String], input: [UInt8] = []) throws(CommandLineError) -> Answer {
        do {
            let stdin = try ScratchFile(), stdout = try ScratchFile(), stderr = try ScratchFile()
            try stdin.handle.write(contentsOf: Data(input))
            try stdin.rewind()
            let process = Process()
            process.executableURL = url
            process.arguments = arguments
            process.environment = environment
            process.standardInput = stdin.handle
            process.standardOutput = stdout.handle
            process.standardError = stderr.handle
            try process.run()
            process.waitUntilExit()
            let status = process.terminationReason == .uncaughtSignal
                ? 128 + process.terminationStatus : process.terminationStatus
            return Answer(status: status, bytes: try stdout.contents(), errors: String(decoding: try stderr.contents(), as: UTF8.self))
        } catch {
            throw CommandLineError("could not run \(url.path) \(arguments.joined(separator: " ")): \(Self.describe(error))")
        }
    }
}

/// An anonymous temporary file (made with `mkstemp` and unlinked at once), one of a child process's streams.
private final class ScratchFile {
    let handle: FileHandle

    init() throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/recipes-program.XXXXXX").utf8CString)
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

extension ExternalProgram {
    /// An error as the words of its `errno` when it has one, else its description.
    static func describe(_ error: any Error) -> String {
        ErrnoError.code(of: error).map(ErrnoError.describe) ?? (error as NSError).localizedDescription
    }
}
