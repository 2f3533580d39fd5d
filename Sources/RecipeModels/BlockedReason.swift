import Foundation

/// Says in words why a recipe is not on the server now (the `blocked` field of `recipes status`).
public enum BlockedReason {
    /// Describes why the recipe is not on the server at `now`, or nil when the server has its current revision.
    ///
    /// Times are shown as `HH:mm` in `timeZone` when on the same day as `now`, else with the date.
    /// A conflict names the recipe's `id` in the command that resolves it.
    public static func describe(_ sync: SyncInfo, id: Int64 = 0, at now: Date, timeZone: TimeZone = .current) -> String? {
        let state = sync.effectiveState(at: now)
        switch state {
        case .conflict:
            return sync.conflict?.blocked(id: id)
        case .synced:
            return nil
        case .uploading:
            let pid = sync.leaseProcessID.map { " in pid \($0)" } ?? ""
            return "uploading\(pid)"
        case .pending:
            if let offline = sync.offlineSince {
                return "offline since \(clockTime(offline, now: now, timeZone: timeZone))"
            }
            if sync.syncedRevision == 0 {
                return "not on the server yet; run `recipes sync`"
            }
            return "revision \(sync.revision) not uploaded yet (server has \(sync.syncedRevision)); run `recipes sync`"
        case .waiting:
            let when = sync.nextAttemptAt.map { clockTime($0, now: now, timeZone: timeZone) } ?? "a later run"
            if let error = sync.lastError {
                return "retry at \(when) after \(error)"
            }
            return "retry at \(when)"
        case .failed:
            return "failed: \(sync.lastError ?? "gave up"); run `recipes sync <id>` to try again"
        case .cancelled:
            return "cancelled; edit it or run `recipes sync <id>` to resume"
        case .deleting:
            return "deletion not yet sent to the server; run `recipes sync`"
        }
    }

    /// Formats `date` as `HH:mm` when on the same day as `now`, else as `yyyy-MM-dd HH:mm`.
    static func clockTime(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = calendar.isDate(date, inSameDayAs: now) ? "HH:mm" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
