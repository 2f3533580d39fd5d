import Foundation
import RecipeStore

/// How often cron runs `recipes sync --background`: the five time fields of a crontab line.
///
/// Only intervals cron can express with one line are accepted: 1 to 59 minutes (`*/N * * * *`, which restarts at
/// every full hour) and whole numbers of hours that divide a day (`0 */H * * *`; 1440 minutes is `0 0 * * *`).
struct CronSchedule: Equatable, Sendable {
    /// The interval `install` uses when `--every` is not given.
    static let defaultMinutes = 5

    /// The values `--every` accepts, in words, for messages and `--help`.
    static let acceptedValues = "1 to 59 minutes, or 60, 120, 180, 240, 360, 480, 720 or 1440 (every 1, 2, 3, 4, 6, 8, 12 or 24 hours)"

    /// The interval in minutes.
    let minutes: Int

    /// The five time fields, e.g. `*/5 * * * *`.
    let fields: String

    /// The schedule that runs every `minutes` minutes; throws a message naming the accepted values otherwise.
    init(everyMinutes minutes: Int) throws(CommandLineError) {
        switch minutes {
        case 1...59:
            fields = "*/\(minutes) * * * *"
        case 1440:
            fields = "0 0 * * *"
        case 60..<1440 where minutes % 60 == 0 && 1440 % minutes == 0:
            fields = "0 */\(minutes / 60) * * *"
        default:
            throw CommandLineError("--every \(minutes) is not an interval cron can keep; use \(Self.acceptedValues)")
        }
        self.minutes = minutes
    }
}

/// The one crontab line that runs `recipes sync --background` for one home, and the pure edits that find, replace and
/// remove it in the text of a crontab.
///
/// The line is, for example,
/// `*/5 * * * * RECIPES_HOME='/abs/home' '/abs/recipes' sync --background # recipes-sync home=/abs/home`:
/// the schedule, the environment cron must pass (cron itself sets only `HOME`, `LOGNAME`, `SHELL` and `PATH`), the
/// executable by absolute path, and a trailing shell comment that tags the line with its home, so that every home
/// has its own line and `uninstall` touches nothing else. Every value is single-quoted for `/bin/sh`, and every `%`
/// is written `\%` outside the quotes, because cron turns a bare `%` into a newline.
///
/// The crontab text is handled as bytes: lines that are not ours are kept byte for byte, even when they are not UTF-8.
struct CrontabEntry: Equatable, Sendable {
    /// One `NAME=value` assignment written before the command, which `/bin/sh` passes to `recipes` only.
    struct Assignment: Equatable, Sendable {
        /// The variable's name.
        var name: String
        /// Its value, written single-quoted.
        var value: String
    }

    /// When the line runs.
    var schedule: CronSchedule
    /// The absolute path of the `recipes` executable.
    var executable: String
    /// The absolute path of the home the line syncs; it tags the line.
    var home: String
    /// The environment the line passes, in order.
    var assignments: [Assignment]

    /// What starts the tag comment of every line `recipes cron` writes.
    static let tagPrefix = "# recipes-sync home="

    /// The environment a cron job needs to resolve the same home and configuration as this process.
    ///
    /// An explicit home (`--home` or `RECIPES_HOME`) is passed as `RECIPES_HOME=<absolute home>`, which also fixes the
    /// config file (`<home>/config.toml`). Otherwise `XDG_DATA_HOME` and `XDG_CONFIG_HOME` are passed when they are set
    /// here, and `HOME` when it differs from the account's home directory that cron will set (`accountHome`).
    static func assignments(for home: RecipesHome, environment: [String: String], accountHome: String?) -> [Assignment] {
        if home.isExplicit { return [Assignment(name: "RECIPES_HOME", value: home.url.path)] }
        var result: [Assignment] = []
        if let userHome = environment["HOME"], !userHome.isEmpty, userHome != accountHome {
            result.append(Assignment(name: "HOME", value: userHome))
        }
        for name in ["XDG_DATA_HOME", "XDG_CONFIG_HOME"] {
            if let value = environment[name], !value.isEmpty { result.append(Assignment(name: name, value: value)) }
        }
        return result
    }

    /// The crontab line, without its newline; throws when a path or value holds a line break, which no crontab line can.
    func line() throws(CommandLineError) -> String {
        let values = [("the recipes executable", executable), ("the home", home)]
            + assignments.map { ("$\($0.name)", $0.value) }
        if let (what, value) = values.first(where: { $0.1.contains(where: \.isNewline) }) {
            throw CommandLineError(
                "\(what) \(Self.quoted(value)) holds a line break, which a crontab line cannot carry; use a path without one")
        }
        let environment = assignments.map { "\($0.name)=\(Self.quoted($0.value))" }
        return ([schedule.fields] + environment + [Self.quoted(executable), "sync", "--background", Self.tag(home: home)])
            .joined(separator: " ")
    }

    /// The comment that tags the line of `home`: `# recipes-sync home=<home>`, the home quoted when it holds anything
    /// but letters, digits and `/._-+,:@`.
    static func tag(home: String) -> String {
        let plain = !home.isEmpty && home.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/._-+,:@".unicodeScalars.contains($0))
        }
        return tagPrefix + (plain ? home : quoted(home))
    }

    /// `value` as one `/bin/sh` word inside a crontab line: single-quoted, `'` written `'\''`, and each `%` written
    /// `\%` between quoted pieces (cron turns `\%` into `%` and a bare `%` into a newline).
    static func quoted(_ value: String) -> String {
        value.split(separator: "%", omittingEmptySubsequences: false)
            .map { "'" + $0.replacing("'", with: #"'\''"#) + "'" }
            .joined(separator: #"\%"#)
    }

    // MARK: Editing a crontab's text

    /// The lines of `text` that are the sync line of `home`, as written (normally one, none when not installed).
    static func lines(ofHome home: String, in text: [UInt8]) -> [String] {
        splitLines(text).compactMap { line in ourLine(line, home: home) }
    }

    /// `text` with `line` as the only sync line of `home`: the first existing line of that home is replaced where it
    /// stands and any further ones are dropped; else `line` is appended (after a newline, if `text` lacked its final
    /// one). Every other byte stays as it was.
    static func installing(_ line: String, home: String, in text: [UInt8]) -> [UInt8] {
        var lines = splitLines(text)
        let ours = lines.indices.filter { ourLine(lines[$0], home: home) != nil }
        guard let first = ours.first else {
            var result = text
            if let last = result.last, last != UInt8(ascii: "\n") { result.append(UInt8(ascii: "\n")) }
            return result + Array(line.utf8) + [UInt8(ascii: "\n")]
        }
        lines[first] = ArraySlice(line.utf8)
        for index in ours.dropFirst().reversed() { lines.remove(at: index) }
        return joinLines(lines)
    }

    /// `text` without the sync lines of `home`, and those lines as they were written. Every other byte stays as it was.
    static func removing(home: String, from text: [UInt8]) -> (text: [UInt8], removed: [String]) {
        var kept: [ArraySlice<UInt8>] = []
        var removed: [String] = []
        for line in splitLines(text) {
            if let ours = ourLine(line, home: home) { removed.append(ours) } else { kept.append(line) }
        }
        return removed.isEmpty ? (text, []) : (joinLines(kept), removed)
    }

    /// The line as text when it is an active (not commented-out) crontab line whose trailing shell comment is the tag
    /// of `home`; nil otherwise.
    static func ourLine(_ bytes: ArraySlice<UInt8>, home: String) -> String? {
        guard let line = String(bytes: bytes, encoding: .utf8),
              line.drop(while: { $0 == " " || $0 == "\t" }).first != "#",
              let comment = shellComment(in: line)
        else { return nil }
        let trimmed = comment.reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        return String(trimmed) == tag(home: home) ? line : nil
    }

    /// Where `/bin/sh` would start a comment in `line`: the first `#` that begins a word outside quotes.
    static func shellComment(in line: String) -> Substring? {
        var inSingleQuotes = false, inDoubleQuotes = false, escaped = false, atWordStart = true
        for index in line.utf8.indices {
            let byte = line.utf8[index]
            if escaped {
                escaped = false
                atWordStart = false
                continue
            }
            if inSingleQuotes {
                if byte == UInt8(ascii: "'") { inSingleQuotes = false }
                continue
            }
            if inDoubleQuotes {
                if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inDoubleQuotes = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "#") where atWordStart: return line[index...]
            case UInt8(ascii: "\\"): escaped = true; atWordStart = false
            case UInt8(ascii: "'"): inSingleQuotes = true; atWordStart = false
            case UInt8(ascii: "\""): inDoubleQuotes = true; atWordStart = false
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ";"), UInt8(ascii: "&"), UInt8(ascii: "|"),
                 UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                atWordStart = true
            default: atWordStart = false
            }
        }
        return nil
    }

    /// The lines of `text` split at each newline; a final newline leaves an empty last element, so that
    /// `joinLines(splitLines(text)) == text` for every text.
    static func splitLines(_ text: [UInt8]) -> [ArraySlice<UInt8>] {
        text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    }

    /// The inverse of `splitLines`.
    static func joinLines(_ lines: [ArraySlice<UInt8>]) -> [UInt8] {
        Array(lines.joined(separator: [UInt8(ascii: "\n")]))
    }
}
