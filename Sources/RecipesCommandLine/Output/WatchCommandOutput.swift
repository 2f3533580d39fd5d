import Foundation
import Locking
import RecipeModels
import SyncWatch

/// How `recipes sync --watch` shows its passes and its own notices: each pass as a sync run in the same mode shows
/// itself (a fresh output per pass, so that `--background`'s "anything logged" starts over), and notices as lines
/// `watch: …` in the log or on stdout, or as `{"event":"watch",…}` objects with `--json`. What needs a person (a
/// pass that cannot start, a configuration that cannot be re-read) also goes to stderr in the log's mode.
final class WatchCommandOutput: WatchOutput {
    private let mode: SyncOutputMode
    private let context: CommandContext
    /// The output of the pass under way (made at its first event, so that it shows the kind of server the pass
    /// syncs with) and that kind: the configuration's, again after each reload.
    private let pass: Locked<(output: (any SyncOutput)?, server: ServerKind)>
    private let log: SyncLog?
    private let processID = ProcessInfo.processInfo.processIdentifier

    /// An output in `mode` (`.background`, `.plain` or `.json`) for `context`'s home and console, showing the
    /// versions of a `server` of that kind.
    init(mode: SyncOutputMode, context: CommandContext, server: ServerKind) {
        self.mode = mode
        self.context = context
        pass = Locked((nil, server))
        log = mode == .background
            ? SyncLog(directory: context.home.logsURL, console: context.console) : nil
    }

    func emit(_ event: SyncEvent) {
        currentPass().emit(event)
    }

    func finish(_ summary: SyncSummary) {
        pass.withLock { pass in
            (pass.output ?? Self.passOutput(mode, context, server: pass.server)).finish(summary)
            pass.output = nil
        }
    }

    /// Shows the versions of the passes to come in the words of `kind` (a reloaded configuration's).
    func showVersions(of kind: ServerKind) {
        pass.withLock { $0.server = kind }
    }

    /// The output of the pass under way, made at its first event.
    private func currentPass() -> any SyncOutput {
        pass.withLock { pass in
            if let output = pass.output { return output }
            let output = Self.passOutput(mode, context, server: pass.server)
            pass.output = output
            return output
        }
    }

    func notice(_ notice: WatchNotice) {
        let time = Date()
        switch mode {
        case .json:
            context.console.out(Self.json(notice, time: time) + "\n")
        case .plain, .terminal:
            guard let text = Self.text(notice) else { return }
            if let problem = Self.problem(notice) { context.console.err("recipes: \(problem)\n") }
            context.console.out("watch: \(text)\n")
        case .background:
            guard let text = Self.text(notice) else { return }
            log?.append("\(EventTimestamp.string(time)) [\(processID)] watch: \(text)")
            if let problem = Self.problem(notice) { context.console.err("recipes: \(problem)\n") }
        }
    }

    private static func passOutput(_ mode: SyncOutputMode, _ context: CommandContext, server: ServerKind) -> any SyncOutput {
        makeSyncOutput(
            mode: mode, console: context.console, logsDirectory: context.home.logsURL, environment: context.environment,
            server: server)
    }

    /// The words of a notice in the log and on stdout; nil for a pass starting (its events say what it did).
    static func text(_ notice: WatchNotice) -> String? {
        switch notice {
        case .watching(let home): "watching \(home) (pid \(getpid()))"
        case .passStarted: nil
        case .offline: "the server cannot be reached; waiting for the network to change"
        case .online: "the server can be reached again"
        case .reloaded: "configuration re-read"
        case .reloadFailed(let message): "could not re-read the configuration, kept the one before: \(message)"
        case .passFailed(let message): "sync could not start: \(message)"
        case .homeFileChanged(let message): message
        case .stopped: "stopped"
        }
    }

    /// The stderr line of a notice that needs a person, if it does.
    static func problem(_ notice: WatchNotice) -> String? {
        switch notice {
        case .reloadFailed(let message):
            "sync --watch: could not re-read the configuration, kept the one before: \(message)"
        case .passFailed(let message):
            "sync --watch: sync could not start: \(message); then send SIGHUP (`kill -HUP \(getpid())`) to retry"
        default: nil
        }
    }

    /// The JSON object of a notice: `{"event":"watch","state":…}` with `reason`, `error` or `probes` where they apply.
    static func json(_ notice: WatchNotice, time: Date) -> String {
        var pairs: [(key: String, value: JSONWriter.Value)] = [("event", .string("watch"))]
        switch notice {
        case .watching(let home):
            pairs += [("state", .string("watching")), ("home", .string(home)), ("pid", .integer(Int64(getpid())))]
        case .passStarted(let reason): pairs += [("state", .string("sync")), ("reason", .string(reason))]
        case .offline(let probes): pairs += [("state", .string("offline")), ("probes", .integer(Int64(probes)))]
        case .online(let probes): pairs += [("state", .string("online")), ("probes", .integer(Int64(probes)))]
        case .reloaded: pairs.append(("state", .string("reloaded")))
        case .reloadFailed(let message): pairs += [("state", .string("reload-failed")), ("error", .string(message))]
        case .passFailed(let message): pairs += [("state", .string("sync-failed")), ("error", .string(message))]
        case .homeFileChanged(let message): pairs += [("state", .string("home-changed")), ("error", .string(message))]
        case .stopped: pairs.append(("state", .string("stopped")))
        }
        pairs.append(("time", .string(EventTimestamp.string(time))))
        var writer = JSONWriter()
        writer.object(ordered: pairs)
        return writer.text
    }
}
