import Foundation
import RecipeStore

/// The systemd user units that keep one home in sync, as text: a pure function of the home, the executable, the
/// environment the units pass and the kind, tested from a table.
///
/// - `.watch`: `<name>.service` runs `recipes sync --watch` for the home, restarted on failure after a back-off;
///   `systemctl --user reload` sends it SIGHUP (the configuration is re-read).
/// - `.timer(every:)`: `<name>.service` is a oneshot `recipes sync --background` (exit 75, "work still waiting", is no
///   failure), started by `<name>.timer` every N minutes (`OnCalendar`, `Persistent=true`: a run missed while the
///   machine slept happens at wake-up).
///
/// Every file starts with the tag line `# recipes-service home=<home>`: `recipes service` overwrites or removes only
/// files that carry its home's tag.
struct SystemdUnits: Equatable, Sendable {
    /// Which units.
    enum Kind: Equatable, Sendable {
        /// A long-running watcher.
        case watch
        /// A oneshot sync every so many minutes.
        case timer(every: CronSchedule)
    }

    /// One unit file.
    struct File: Equatable, Sendable {
        /// Its name in the user unit folder, e.g. `recipes-sync.service`.
        var name: String
        /// Its text.
        var text: String
    }

    /// The unit name without its suffix, e.g. `recipes-sync`.
    var name: String
    /// The home the units sync (absolute).
    var home: String
    /// The `recipes` executable's stable path (absolute).
    var executable: String
    /// The environment the service passes (as cron's line does).
    var assignments: [CrontabEntry.Assignment]
    /// Which units.
    var kind: Kind
    /// The user manager's version (`systemctl --version`), if known: `RestartSteps=` needs 254.
    var systemdVersion: Int?

    /// The tag line that starts every file written for `home`.
    static func tag(home: String) -> String { "# recipes-service home=\(home)" }

    /// The unit name of a home: `recipes-sync` for the default home, else `recipes-sync-` and 8 hex digits of a hash
    /// of its path (FNV-1a: each home has its own units, and the tag inside says which).
    static func name(for home: RecipesHome) -> String {
        guard home.isExplicit else { return "recipes-sync" }
        var hash: UInt32 = 0x811C_9DC5
        for byte in home.url.path.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let digits = String(hash, radix: 16)
        return "recipes-sync-" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The suffixes of every file `recipes service` may write for one name.
    static let suffixes = [".service", ".timer"]

    /// The files, in the order they are written; throws when a path cannot be written into a unit file.
    func files() throws(CommandLineError) -> [File] {
        for path in [home, executable] + assignments.map(\.value) {
            if let bad = path.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                throw CommandLineError(
                    "\(path.debugDescription) holds a control character (U+\(String(bad.value, radix: 16, uppercase: true))); "
                        + "systemd units cannot name it: use a home and an executable path without one")
            }
        }
        let header = [Self.tag(home: home), "# Written by `recipes service install`; `recipes service uninstall` removes it."]
        let environment = assignments.map { "Environment=" + Self.quoted("\($0.name)=\($0.value)", forCommand: false) }
        switch kind {
        case .watch:
            var service = header + [
                "[Unit]",
                "Description=recipes: sync \(Self.escaped(home)) whenever there is something to do",
                "",
                "[Service]",
                "Type=exec",
            ] + environment + [
                "ExecStart=\(Self.quoted(executable, forCommand: true)) sync --watch",
                "ExecReload=/bin/kill -HUP $MAINPID",
                "Restart=on-failure",
                "RestartSec=10s",
            ]
            if let version = systemdVersion, version >= 254 {
                service += ["RestartSteps=6", "RestartMaxDelaySec=10min"]
            }
            service += ["", "[Install]", "WantedBy=default.target"]
            return [File(name: name + ".service", text: service.joined(separator: "\n") + "\n")]
        case .timer(let schedule):
            let service = header + [
                "[Unit]",
                "Description=recipes: sync \(Self.escaped(home)) once (started by \(name).timer)",
                "",
                "[Service]",
                "Type=oneshot",
            ] + environment + [
                "ExecStart=\(Self.quoted(executable, forCommand: true)) sync --background",
                "SuccessExitStatus=75",
            ]
            let timer = header + [
                "[Unit]",
                "Description=recipes: sync \(Self.escaped(home)) every \(schedule.minutes) min",
                "",
                "[Timer]",
                "OnCalendar=\(Self.calendar(schedule))",
                "Persistent=true",
                "",
                "[Install]",
                "WantedBy=timers.target",
            ]
            return [
                File(name: name + ".service", text: service.joined(separator: "\n") + "\n"),
                File(name: name + ".timer", text: timer.joined(separator: "\n") + "\n"),
            ]
        }
    }

    /// The unit systemctl enables: the service that watches, or the timer.
    var enabledUnit: String {
        switch kind {
        case .watch: name + ".service"
        case .timer: name + ".timer"
        }
    }

    /// The `OnCalendar=` value of `schedule` (the same times as cron's line: minute 0 of the hour and every N after
    /// it, or every H hours from midnight).
    static func calendar(_ schedule: CronSchedule) -> String {
        switch schedule.minutes {
        case 1440: "*-*-* 00:00:00"
        case let minutes where minutes >= 60: "*-*-* 00/\(minutes / 60):00:00"
        case let minutes: "*-*-* *:00/\(minutes):00"
        }
    }

    /// `text` as one word of a unit file: double-quoted, with `\` and `"` escaped, `%` doubled (systemd's specifiers)
    /// and, in a command line (`forCommand`), `$` doubled (systemd's variable expansion).
    static func quoted(_ text: String, forCommand: Bool) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "%": result += "%%"
            case "$" where forCommand: result += "$$"
            default: result.append(character)
            }
        }
        return result + "\""
    }

    /// `text` in a free-text value such as `Description=`: `%` doubled.
    static func escaped(_ text: String) -> String { text.replacing("%", with: "%%") }
}
