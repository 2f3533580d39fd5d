import Foundation

/// Says in words why a recipe is not on the server now (the `blocked` field of `recipes status`).
public enum BlockedReason {
    /// Describes why the recipe is not on the server at `now`, or nil when the server has its current revision.
    ///
    /// Times are shown as `HH:mm` in `timeZone` when on the same day as `now`, else with the date.
    /// The advice names the recipe's `id` in the command it gives, in `dialect`'s words (a shell's or the REPL's).
    /// `serverCopy` names the server's copy at a version ("the server's version 4"; the command line names a Mealie's
    /// by the time Mealie changed it). Without a server set (`hasServer` false), what is still to send says to set one
    /// first, not to sync.
    public static func describe(
        _ sync: SyncInfo, id: Int64, at now: Date, timeZone: TimeZone = .current, dialect: CommandDialect = .shell,
        hasServer: Bool = true, serverCopy: (Int64) -> String = { "the server's version \($0)" }
    ) -> String? {
        let state = sync.effectiveState(at: now)
        switch state {
        case .conflict:
            return sync.conflict?.blocked(id: id, dialect: dialect)
        case .synced:
            return nil
        case .uploading:
            let pid = sync.leaseProcessID.map { " in pid \($0)" } ?? ""
            return "uploading\(pid)"
        case .pending:
            if let offline = sync.offlineSince {
                return "offline since \(clockTime(offline, now: now, timeZone: timeZone))"
            }
            let then = hasServer ? "run \(dialect.syncAll)" : noServer
            guard let version = sync.serverVersion else { return "not on the server yet; \(then)" }
            return "changed here since \(serverCopy(version)); \(then)"
        case .waiting:
            let when = sync.nextAttemptAt.map { clockTime($0, now: now, timeZone: timeZone) } ?? "a later run"
            if let error = sync.lastError {
                return "retry at \(when) after \(error)"
            }
            return "retry at \(when)"
        case .failed:
            return "failed: \(sync.lastError ?? "gave up"); run \(dialect.sync(id)) to try again"
        case .cancelled:
            return "cancelled; edit it or run \(dialect.sync(id)) to resume"
        case .deleting:
            return "deletion not yet sent to the server; " + (hasServer ? "run \(dialect.syncAll)" : noServer)
        }
    }

    /// The advice for a recipe still to send when no server is set (the same command at a shell and in the REPL: the
    /// REPL has no `config`).
    static let noServer = "no server is set: `recipes config set server.url URL` (and server.token), then sync"

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
