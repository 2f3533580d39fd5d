import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The user's systemd manager, through `systemctl --user`: whether it can be reached from this process, and the
/// commands `recipes service` runs there (or, when it cannot be reached, tells the user to run).
struct UserManager {
    /// `systemctl`, when installed.
    let systemctl: ExternalProgram?

    /// The manager of the user of `environment`.
    init(environment: [String: String]) {
        systemctl = ExternalProgram(named: "systemctl", environment: environment)
    }

    /// Whether a user manager answers (`systemctl --user show-environment` succeeds): without one (no login session,
    /// no `XDG_RUNTIME_DIR`, a container) the commands are printed for the user to run instead.
    var isReachable: Bool {
        guard let systemctl, let answer = try? systemctl.run(["--user", "show-environment"]) else { return false }
        return answer.status == 0
    }

    /// The version of systemd (`systemctl --version`: "systemd 252 (…)"), if installed.
    var version: Int? {
        guard let systemctl, let answer = try? systemctl.run(["--version"]), answer.status == 0 else { return nil }
        return Self.version(in: answer.output)
    }

    /// The version number on the first line of `systemctl --version`'s output.
    static func version(in output: String) -> Int? {
        guard let first = output.split(separator: "\n").first else { return nil }
        let words = first.split(separator: " ")
        guard words.count >= 2, words[0] == "systemd" else { return nil }
        return Int(words[1])
    }

    /// Runs `systemctl --user arguments`; throws its message when it fails.
    func run(_ arguments: [String]) throws(CommandLineError) {
        guard let systemctl else { throw CommandLineError("systemctl not found") }
        let answer = try systemctl.run(["--user"] + arguments)
        guard answer.status == 0 else {
            throw CommandLineError(
                "`systemctl --user \(arguments.joined(separator: " "))` failed (exit status \(answer.status))"
                    + (answer.message.isEmpty ? "" : ": \(answer.message)"))
        }
    }

    /// What `systemctl --user arguments` answers on stdout, trimmed (`is-active`, `is-enabled`), or nil.
    func ask(_ arguments: [String]) -> String? {
        guard let systemctl, let answer = try? systemctl.run(["--user"] + arguments) else { return nil }
        let text = answer.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// The user's login name, for `loginctl enable-linger`.
    static var userName: String {
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return ProcessInfo.processInfo.environment["USER"] ?? "$USER"
    }

    /// Whether systemd keeps this user's manager running without a login session (`loginctl enable-linger`).
    static var lingers: Bool {
        FileManager.default.fileExists(atPath: "/var/lib/systemd/linger/\(userName)")
    }
}
