import Foundation
import RecipeModels
#if canImport(Glibc)
import Glibc
#endif

/// Shows a sync run as it happens: the engine calls `emit` for every event and `finish` once at the end.
///
/// Both may be called from any thread, and events arrive concurrently from several upload tasks; each
/// implementation serializes its own writes, so every line comes out whole.
public protocol SyncOutput: Sendable {
    /// Shows one event. Progress events come at most 10 times per second per recipe (the engine throttles them).
    func emit(_ event: SyncEvent)
    /// Shows how the run ended; called once, after the last event.
    func finish(_ summary: SyncSummary)
    /// Says which recipes the run is expected to upload (their titles), before it starts: the live display counts
    /// against them and sizes its title column for them from the first frame.
    func expect(titles: [String])
}

extension SyncOutput {
    /// Only the live display uses them.
    func expect(titles: [String]) {}
}

/// The four ways of showing a sync run.
public enum SyncOutputMode: Sendable, Equatable {
    /// Live progress bars redrawn in place (stdout is a terminal).
    case terminal
    /// One plain line per event (stdout is a pipe or a file).
    case plain
    /// `--json`: one JSON object per line on stdout.
    case json
    /// `--background`: nothing on stdout, lines appended to `logs/sync.log`, problems on stderr.
    case background

    /// The mode for the flags given and where stdout goes: `--background` wins over `--json`, which wins over
    /// terminal detection; a terminal counts only when `TERM` is not `dumb`.
    public static func select(
        background: Bool, json: Bool, environment: [String: String],
        stdoutIsTerminal: Bool = isatty(STDOUT_FILENO) == 1
    ) -> SyncOutputMode {
        if background { return .background }
        if json { return .json }
        if stdoutIsTerminal, environment["TERM"] != "dumb" { return .terminal }
        return .plain
    }
}

/// Makes the output for `mode`.
///
/// - Parameters:
///   - console: where stdout and stderr go.
///   - logsDirectory: `<home>/logs`, for `--background` (created with mode 0700 at the first line written).
///   - environment: for `NO_COLOR` (set and not empty: no colour at all).
///   - logRotationBytes: the size past which `sync.log` is rotated (about 1 MiB; smaller in tests).
///   - dialect: the words of the commands the lines advise (`recipes sync 3` at a shell, `sync 3` in the REPL).
///   - server: the kind of server the run syncs with, whose versions the lines show in its words (the JSON keeps
///     the numbers).
///   - verbose: on a terminal, a line for every recipe pulled and image downloaded (else they are counted in the
///     live area: a restore of a thousand recipes is one line that counts, then the summary).
public func makeSyncOutput(
    mode: SyncOutputMode, console: any Console, logsDirectory: URL,
    environment: [String: String] = ProcessInfo.processInfo.environment, logRotationBytes: Int64 = 1 << 20,
    dialect: CommandDialect = .shell, server: ServerKind = .http, verbose: Bool = false
) -> any SyncOutput {
    switch mode {
    case .terminal:
        let colour = (environment["NO_COLOR"] ?? "").isEmpty
        return TerminalSyncOutput(console: console, colour: colour, dialect: dialect, server: server, verbose: verbose)
    case .plain:
        return PlainSyncOutput(console: console, dialect: dialect, server: server)
    case .json:
        return JSONSyncOutput(console: console)
    case .background:
        let log = SyncLog(directory: logsDirectory, rotationBytes: logRotationBytes, console: console)
        return BackgroundSyncOutput(log: log, console: console, server: server)
    }
}
