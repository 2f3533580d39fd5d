import Foundation
import RecipeModels

/// Sync events and summaries as one human-readable, grep-friendly line each, shared by the plain output, the
/// permanent lines of the terminal output and `logs/sync.log`.
///
/// Every line starts `#<id> <title>: ` so that `grep '^#3 '` finds one recipe's story; titles and error messages
/// are cleaned of control characters first.
enum SyncEventText {
    /// `#3 Tomato soup: image: uploading 256.0 KiB (attempt 1)` and the like; a command it advises is in
    /// `dialect`'s words, a version of the server in the words of its kind (`DestinationVersionWords`).
    static func line(_ event: SyncEvent, dialect: CommandDialect = .shell, server: ServerKind = .http) -> String {
        prefix(event) + message(event, dialect: dialect, server: server)
    }

    /// `#3 Tomato soup: ` — the recipe the line is about; one that has no id here yet (a change of the server's not
    /// applied) by the start of its uuid, as `status` shows it: `3f2a91c0 Tomato soup: `, never `#0`.
    static func prefix(_ event: SyncEvent) -> String {
        let title = TerminalText.clean(event.title)
        let subject = event.id > 0 ? "#\(event.id)" : String(event.uuid.uuidString.lowercased().prefix(8))
        return title.allSatisfy(\.isWhitespace) ? "\(subject): " : "\(subject) \(title): "
    }

    /// What happened, after the prefix, with the command its hint names (in `dialect`'s words) and a version of the
    /// server in the words of `server`'s kind.
    static func message(_ event: SyncEvent, dialect: CommandDialect = .shell, server: ServerKind = .http) -> String {
        let happened = happened(event, server: server)
        switch event.hint {
        case .resolve?: return happened + " — " + dialect.resolve(event.id)
        case .resume?: return happened + "; " + dialect.sync(event.id) + " resumes it"
        case .retry?: return happened + "; " + dialect.sync(event.id) + " tries it again"
        case nil: return happened
        }
    }

    /// The event's `error` with the command its hint names, in a shell's words: the `error` of `--json`.
    static func errorWithHint(_ event: SyncEvent) -> String? {
        guard let error = event.error else { return nil }
        switch event.hint {
        case .resolve?: return error + " — " + CommandDialect.shell.resolve(event.id)
        case .resume?: return error + "; " + CommandDialect.shell.sync(event.id) + " resumes it"
        case .retry?: return error + "; " + CommandDialect.shell.sync(event.id) + " tries it again"
        case nil: return error
        }
    }

    /// What happened, without advice.
    private static func happened(_ event: SyncEvent, server: ServerKind) -> String {
        let step = event.step.map { "\($0.rawValue): " } ?? ""
        let error = event.error.map(TerminalText.clean)
        let version = event.version.map { DestinationVersionWords(version: $0, kind: server) }
        switch event.kind {
        case .start:
            return step + started(event)
        case .progress:
            return step + progress(bytes: event.bytes ?? 0, total: event.total)
        case .retry:
            var text = step + "retry"
            if let delay = event.delay { text += " in " + DurationFormat.describe(delay) }
            if let error { text += " after " + error }
            return text
        case .done:
            if event.step == .delete { return "done (deleted on the server)" }
            if let version { return "done (" + version.onServer + ")" }
            return "done"
        case .failed:
            return "failed: " + (error ?? "gave up")
        case .cancelled:
            return "cancelled" + (error.map { ": " + $0 } ?? "")
        case .offline:
            let again = event.delay.map { "; checking again in " + DurationFormat.describe($0) } ?? ""
            return "offline: " + (error ?? "the server cannot be reached; nothing was sent") + again
        case .skipped:
            if let error { return "skipped: " + error }
            if let delay = event.delay { return "skipped: next attempt in " + DurationFormat.describe(delay) }
            return "skipped: not due"
        case .pulled:
            return "pulled" + (version.map { " (" + $0.fromServer + ")" } ?? "")
        case .merged:
            return "merged with " + (version?.serversCopy ?? "the server's version") + (error.map { "; " + $0 } ?? "")
        case .conflict:
            return "conflict: " + (error ?? "changed here and on the server")
        case .removed:
            return "removed here: deleted on the server"
        case .downloaded:
            return "downloaded image" + (event.bytes.map { " (" + ByteFormat.describe($0) + ")" } ?? "")
        }
    }

    /// `uploading 256.0 KiB (attempt 1)`, `uploading revision 4, 1.2 KiB (attempt 2)`, `deleting on the server …`.
    private static func started(_ event: SyncEvent) -> String {
        let attempt = event.attempt.map { " (attempt \($0))" } ?? ""
        if event.step == .delete { return "deleting on the server" + attempt }
        if event.step == .read { return "reading the server's copy (another device wrote first)" + attempt }
        if event.step == .merge { return "merging the server's copy" + attempt }
        var details: [String] = []
        if event.step == .recipe, let revision = event.revision { details.append("revision \(revision)") }
        if let total = event.total { details.append(ByteFormat.describe(total)) }
        let verb = event.step == nil ? "starting" : "uploading"
        return verb + (details.isEmpty ? "" : " " + details.joined(separator: ", ")) + attempt
    }

    /// `50% (128.0 KiB of 256.0 KiB)`, or `128.0 KiB sent` when the total is unknown.
    static func progress(bytes: Int64, total: Int64?) -> String {
        guard let total else { return "\(ByteFormat.describe(bytes)) sent" }
        return "\(percent(bytes, of: total))% (\(ByteFormat.describe(bytes)) of \(ByteFormat.describe(total)))"
    }

    /// Whole percent of `bytes` in `total`, rounded down and kept within 0…100 (an empty body is 100%).
    static func percent(_ bytes: Int64, of total: Int64) -> Int {
        guard total > 0 else { return 100 }
        let clamped = min(max(bytes, 0), total)
        return Int(Double(clamped) * 100 / Double(total))
    }

    /// `sync: 3 done, 1 failed, 2 waiting`, or `sync: nothing to do` when nothing happened; commands in `dialect`'s
    /// words.
    static func summary(_ summary: SyncSummary, dialect: CommandDialect = .shell, server: ServerKind = .http) -> String {
        var parts: [String] = []
        if summary.pulled > 0 { parts.append("\(summary.pulled) pulled") }
        if summary.merged > 0 { parts.append("\(summary.merged) merged") }
        if summary.removed > 0 { parts.append("\(summary.removed) removed") }
        if summary.conflicts > 0 {
            parts.append("\(summary.conflicts) in conflict (\(dialect.conflicts) lists them)")
        }
        if summary.done > 0 { parts.append("\(summary.done) done") }
        if summary.failed > 0 { parts.append("\(summary.failed) failed") }
        if summary.cancelled > 0 { parts.append("\(summary.cancelled) cancelled") }
        if summary.waiting > 0 { parts.append("\(summary.waiting) waiting") }
        if summary.failedEarlier > 0 { parts.append("\(summary.failedEarlier) failed earlier, not retried") }
        if summary.cancelledEarlier > 0 { parts.append("\(summary.cancelledEarlier) cancelled earlier") }
        if let stop = summary.pullStopped { parts.append("pull stopped: " + TerminalText.clean(stop.words)) }
        for fallback in summary.fallbacks { parts.append("fell back: " + TerminalText.clean(fallback)) }
        let counts = parts.isEmpty ? "" : parts.joined(separator: ", ") + "; "
        if summary.credentialsRefused {
            return "sync: " + counts + CredentialsAdvice.stopped(server)
        }
        if let problem = summary.setupProblem {
            return "sync: " + counts + "stopped: " + TerminalText.clean(problem)
        }
        return parts.isEmpty ? "sync: nothing to do" : "sync: " + parts.joined(separator: ", ")
    }
}

/// The recipes a run left waiting for an unreachable server, shown as one line at the end of the run instead of a
/// line each (500 pending recipes on a laptop without network are one line, not 500).
struct OfflineRecipes: Sendable {
    /// How many recipes were left for the network.
    private(set) var count = 0
    /// Why, as the first of them said (`cannot reach host:port`).
    private(set) var reason: String?

    /// Takes `event` when it leaves a recipe for the network (an `offline` event with no wait within the run);
    /// whether it did, so that the output does not show it on its own.
    mutating func take(_ event: SyncEvent) -> Bool {
        guard event.kind == .offline, event.delay == nil else { return false }
        count += 1
        if reason == nil { reason = event.error.map(TerminalText.clean) }
        return true
    }

    /// `offline: cannot reach r.example.org:443; 3 recipes wait for it, nothing was sent`, or nil when none was
    /// left for the network.
    var line: String? {
        guard count > 0 else { return nil }
        let recipes = count == 1 ? "1 recipe waits" : "\(count) recipes wait"
        let reason = reason ?? "the server cannot be reached"
        let sent = reason.contains("nothing was sent") ? "" : ", nothing was sent"  // the engine's words say it
        return "offline: " + reason + "; \(recipes) for it" + sent
    }
}
