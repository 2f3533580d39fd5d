import Locking
import RecipeModels

/// `recipes sync --json`: one JSON object per line on stdout, for programs.
///
/// Each event line has the keys `event`, `id`, `uuid` (lowercase), `title`, then `step`, `revision` (this device's),
/// `bytes`, `total`, `attempt`, `delay`, `version` (the server's) and `error` only where they apply, and `time`
/// (ISO 8601 UTC, milliseconds).
/// `finish` writes `{"event":"summary","done":N,"failed":N,"cancelled":N,"waiting":N,"exitStatus":N}`.
final class JSONSyncOutput: SyncOutput {
    private let console: any Console
    /// Held while writing, so that lines from concurrent uploads never interleave; counts the lines written (a lock
    /// around an empty value is reported as a race by ThreadSanitizer: its zero-size value has no address of its own).
    private let writing = Locked(0)

    init(console: any Console) {
        self.console = console
    }

    func emit(_ event: SyncEvent) {
        let line = Self.line(event) + "\n"
        writing.withLock { lines in
            console.out(line)
            lines += 1
        }
    }

    func finish(_ summary: SyncSummary) {
        let line = Self.line(summary) + "\n"
        writing.withLock { lines in
            console.out(line)
            lines += 1
        }
    }

    /// The JSON object of one event, without the newline.
    static func line(_ event: SyncEvent) -> String {
        var pairs: [(key: String, value: JSONWriter.Value)] = [
            ("event", .string(event.kind.rawValue)), ("id", .integer(event.id)),
            ("uuid", .string(event.uuid.lowercasedString)), ("title", .string(event.title)),
        ]
        if let step = event.step { pairs.append(("step", .string(step.rawValue))) }
        if let revision = event.revision { pairs.append(("revision", .integer(revision))) }
        if let bytes = event.bytes { pairs.append(("bytes", .integer(bytes))) }
        if let total = event.total { pairs.append(("total", .integer(total))) }
        if let attempt = event.attempt { pairs.append(("attempt", .integer(Int64(attempt)))) }
        if let delay = event.delay { pairs.append(("delay", .double((delay * 1000).rounded() / 1000))) }
        if let version = event.version { pairs.append(("version", .integer(version))) }
        if let error = SyncEventText.errorWithHint(event) { pairs.append(("error", .string(error))) }
        pairs.append(("time", .string(EventTimestamp.string(event.time))))
        var writer = JSONWriter()
        writer.object(ordered: pairs)
        return writer.text
    }

    /// The final summary object, without the newline.
    static func line(_ summary: SyncSummary) -> String {
        var writer = JSONWriter()
        writer.object([
            "event": .string("summary"), "done": .integer(Int64(summary.done)),
            "failed": .integer(Int64(summary.failed)), "cancelled": .integer(Int64(summary.cancelled)),
            "waiting": .integer(Int64(summary.waiting)), "pulled": .integer(Int64(summary.pulled)),
            "merged": .integer(Int64(summary.merged)), "conflicts": .integer(Int64(summary.conflicts)),
            "removed": .integer(Int64(summary.removed)), "failedEarlier": .integer(Int64(summary.failedEarlier)),
            "cancelledEarlier": .integer(Int64(summary.cancelledEarlier)), "exitStatus": .integer(Int64(summary.exitStatus)),
        ])
        return writer.text
    }
}
