import Foundation

/// Whether a cron daemon runs on this machine: a crontab line does nothing without one, and `cron install` says so.
///
/// Read from `/proc/<pid>/comm` (the names of the running programs), without asking a service manager: Debian's
/// `cron`, cronie's and busybox's `crond`, `fcron`.
enum CronDaemon {
    /// The program names of cron daemons.
    static let names: Set<String> = ["cron", "crond", "fcron"]

    /// Whether one of `commands` (program names as `/proc/<pid>/comm` gives them, with or without a line break) is a
    /// cron daemon.
    static func isAmong(_ commands: [String]) -> Bool {
        commands.contains { names.contains($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Whether a cron daemon runs, from the processes listed in `proc`; true when they cannot be listed (a machine
    /// without `/proc`: nothing is known, so nothing is said).
    static func isRunning(proc: String = "/proc") -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: proc) else { return true }
        let commands = entries.lazy.filter { $0.allSatisfy(\.isNumber) }.compactMap { pid in
            FileManager.default.contents(atPath: "\(proc)/\(pid)/comm").map { String(decoding: $0, as: UTF8.self) }
        }
        return isAmong(Array(commands))
    }

    /// The warning `cron install` gives when none runs.
    static let warning = "warning: no cron daemon is running on this machine, so the line does nothing until one "
        + "does (Debian: `sudo service cron start`; a container may have none)"
}

/// Which `recipes` a crontab line runs: the running one, unless it runs from a build folder (`.build/…`, which
/// `make clean` and the next build replace), where the installed one on `PATH` is used instead, or, when there is
/// none, the person is asked to install it first. A plain decision, tested from a table.
enum CronExecutable: Equatable {
    /// The running executable, as it is.
    case running(String)
    /// The installed executable found on `PATH`, in place of the running one in a build folder (named second).
    case installed(String, insteadOf: String)
    /// None that lasts: what to do, in words.
    case refused(String)

    /// Whether `path` lies in a build folder: a folder named `.build` or `.build-…` (SwiftPM's scratch folders).
    static func isInBuildFolder(_ path: String) -> Bool {
        path.split(separator: "/").dropLast().contains { $0 == ".build" || $0.hasPrefix(".build-") }
    }

    /// The executable for a line when `running` runs and `PATH` is `searchPath`; `isExecutable` says whether a file
    /// is an executable one.
    static func choose(running: String, searchPath: String?, isExecutable: (String) -> Bool) -> CronExecutable {
        guard isInBuildFolder(running) else { return .running(running) }
        for folder in (searchPath ?? "").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/recipes"
            if !isInBuildFolder(candidate), isExecutable(candidate) { return .installed(candidate, insteadOf: running) }
        }
        return .refused(
            "this recipes runs from a build folder (\(running)), which `make clean` and the next build replace, so a "
                + "crontab line must not name it; install recipes first (`make install`, into /usr/local/bin, or "
                + "`make install PREFIX=~/.local` for your account alone) and run `recipes cron install` with the "
                + "installed one")
    }
}
