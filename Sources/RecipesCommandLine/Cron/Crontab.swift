import Foundation

/// The user's crontab, read with `crontab -l` and replaced with `crontab -` (the new text on standard input), through
/// the `crontab` program found on `PATH`.
///
/// `crontab` runs with its standard streams on unlinked temporary files, so that neither a large crontab nor a
/// `crontab` that exits early can block or signal this process.
struct Crontab {
    /// The `crontab` program, run with `LC_ALL=C` ("no crontab for <user>" is recognised in English).
    let program: ExternalProgram

    /// Finds `crontab` on the `PATH` of `environment` (`/usr/bin:/bin` when unset); throws a message saying how to
    /// install it when there is none.
    init(environment: [String: String]) throws(CommandLineError) {
        guard let program = ExternalProgram(named: "crontab", environment: environment) else {
            throw CommandLineError("crontab not found: install cron, e.g. `apt-get install cron`")
        }
        self.program = program
    }

    /// The crontab's text, byte for byte; empty when the user has none (`crontab -l` says "no crontab for <user>").
    func read() throws(CommandLineError) -> [UInt8] {
        let result = try program.run(["-l"])
        if result.status == 0 { return result.bytes }
        if result.status == 1 && result.errors.lowercased().contains("no crontab for") { return [] }
        throw failure("crontab -l", result)
    }

    /// Replaces the crontab with `text` (which must end with a newline), or removes it (`crontab -r`) when `text` is
    /// empty, so that uninstalling the only line leaves no crontab rather than an empty one.
    func write(_ text: [UInt8]) throws(CommandLineError) {
        if text.isEmpty {
            let result = try program.run(["-r"])
            if result.status == 0 || result.errors.lowercased().contains("no crontab for") { return }
            throw failure("crontab -r", result)
        }
        let result = try program.run(["-"], input: text)
        guard result.status == 0 else { throw failure("crontab -", result) }
    }

    /// The error for a failed run: the command, its exit status and `crontab`'s own message on one line.
    private func failure(_ command: String, _ answer: ExternalProgram.Answer) -> CommandLineError {
        let message = answer.errors.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
        return CommandLineError(
            "`\(command)` failed (exit status \(answer.status))" + (message.isEmpty ? "" : ": \(message)"))
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
            throw CommandLineError("cannot find the running recipes executable through /proc/self/exe: \(ExternalProgram.describe(error))")
        }
    }

    /// The home directory of the account this process runs as, from the password database: the `HOME` cron sets.
    static func accountHome() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }
}
