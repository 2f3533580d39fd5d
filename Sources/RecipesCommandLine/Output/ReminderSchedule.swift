import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// When `recipes sync --background` reminds of the recipes that wait for a person (failed, cancelled): at most once a
/// day, so that a cron job every five minutes neither fills `sync.log` with them nor mails them 288 times a day.
///
/// The time of the last reminder is kept in `<home>/logs/reminded` (seconds since 1970, as text).
struct ReminderSchedule {
    /// The shortest time between two reminders.
    static let interval: TimeInterval = 24 * 3600

    /// The file holding the time of the last reminder.
    let path: String

    /// The schedule of the logs folder `logs`.
    init(logs: URL) { path = logs.appendingPathComponent("reminded").path }

    /// Whether a reminder is due at `now` after one at `last` (nil: never): a day later, or at once when the clock
    /// went back before the last one (a wrong clock must not silence reminders for years).
    static func isDue(last: Date?, now: Date) -> Bool {
        guard let last else { return true }
        let elapsed = now.timeIntervalSince(last)
        return elapsed >= interval || elapsed < 0
    }

    /// The time of the last reminder, or nil when there was none (or the file cannot be read).
    func last() -> Date? {
        guard let data = FileManager.default.contents(atPath: path),
            let seconds = Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Records a reminder at `now` (written under a temporary name, then renamed); a failure only means the next run
    /// reminds again.
    func record(_ now: Date) {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        guard let file = try? AtomicFile(creating: temporary, permissions: 0o600) else { return }
        do throws(ErrnoError) {
            try file.write(Array(String(Int64(now.timeIntervalSince1970)).utf8))
            try file.commit(to: path)
        } catch {
            file.discard()
        }
    }
}
