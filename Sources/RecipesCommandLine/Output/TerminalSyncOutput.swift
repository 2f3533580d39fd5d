import Dispatch
import Foundation
import Locking
import RecipeModels
#if canImport(Glibc)
import Glibc
#endif

/// The size of the terminal stdout writes to.
struct TerminalSize: Sendable, Equatable {
    var columns: Int
    var rows: Int

    /// What a terminal that cannot be asked is taken to be.
    static let fallback = TerminalSize(columns: 80, rows: 24)

    /// The size of the terminal on stdout from `ioctl(TIOCGWINSZ)`, or 80 × 24 when it cannot tell.
    @Sendable static func current() -> TerminalSize {
        var size = winsize()
        let status = withUnsafeMutablePointer(to: &size) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        guard status == 0, size.ws_col > 0 else { return fallback }
        return TerminalSize(columns: Int(size.ws_col), rows: size.ws_row > 0 ? Int(size.ws_row) : fallback.rows)
    }
}

/// `recipes sync` on a terminal: a live area of progress rows (one per recipe uploading, then the overall row)
/// redrawn in place at most 10 times per second, with one permanent line above it for each recipe that finishes.
///
/// The rows come from `SyncProgressView.render`; this class only keeps the state, paces the frames and writes them:
/// cursor up over the previous frame (`ESC[<n>A`), `\r`, each row followed by `ESC[K`, then `ESC[J` to drop rows
/// left over from a taller frame. While recipes are uploading, the frame is also refreshed twice a second without
/// new events, so rates fall and retry countdowns run.
final class TerminalSyncOutput: SyncOutput {
    /// The shortest time between two frames.
    static let frameInterval: TimeInterval = 0.1
    /// How often a live area with uploads is refreshed when no event comes.
    static let refreshInterval: TimeInterval = 0.5

    private struct Screen {
        var progress = SyncProgressState()
        /// Permanent lines not yet written (they go out with the next frame).
        var pendingLines: [String] = []
        /// How many rows of live area are on the screen, the cursor being on the line below them.
        var drawnRows = 0
        var lastFrame: Date?
        /// When the next frame is due, if one is scheduled (a scheduled frame whose time is no longer this one
        /// was superseded and does nothing).
        var nextFrame: Date?
        var finished = false
        /// The recipes left for the network: one line at the end.
        var offline = OfflineRecipes()
    }

    private let console: any Console
    private let colour: Bool
    /// The words of the commands the lines advise.
    private let dialect: CommandDialect
    /// The kind of server the run syncs with, whose versions the lines show in its words.
    private let server: ServerKind
    private let clock: @Sendable () -> Date
    private let size: @Sendable () -> TerminalSize
    /// Everything that changes; held while a frame is built and written, so frames never interleave.
    private let screen = Locked(Screen())

    /// Creates the output; `clock` and `size` are replaceable for tests.
    init(
        console: any Console, colour: Bool, dialect: CommandDialect = .shell, server: ServerKind = .http,
        verbose: Bool = false, clock: @escaping @Sendable () -> Date = { Date() },
        size: @escaping @Sendable () -> TerminalSize = TerminalSize.current
    ) {
        self.console = console
        self.colour = colour
        self.dialect = dialect
        self.server = server
        self.clock = clock
        self.size = size
        screen.withLock { $0.progress.everyLine = verbose }
    }

    func emit(_ event: SyncEvent) {
        let next: Date? = screen.withLock { screen in
            guard !screen.finished else { return nil }
            let leftForNetwork = screen.offline.take(event)
            if screen.progress.apply(event), !leftForNetwork { screen.pendingLines.append(permanentLine(event)) }
            return frame(&screen)
        }
        if let next { schedule(next) }
    }

    func expect(titles: [String]) {
        screen.withLock { $0.progress.expect(recipes: titles.count, titles: titles) }
    }

    func finish(_ summary: SyncSummary) {
        screen.withLock { screen in
            guard !screen.finished else { return }
            screen.finished = true
            var text = Self.cursorUp(screen.drawnRows) + "\r\u{1B}[J"
            for line in screen.pendingLines { text += line + "\n" }
            if let offline = screen.offline.line { text += offline + "\n" }
            text += SyncEventText.summary(summary, dialect: dialect, server: server) + "\n"
            screen.pendingLines = []
            screen.drawnRows = 0
            console.out(text)
        }
    }

    /// Draws a frame now if the last one is old enough, else arranges one as soon as allowed; returns the time of a
    /// newly arranged frame, for the caller to schedule once the lock is released.
    private func frame(_ screen: inout Screen) -> Date? {
        let now = clock()
        if let last = screen.lastFrame, (0..<Self.frameInterval).contains(now.timeIntervalSince(last)) {
            // (A clock that went back draws at once rather than waiting for it to catch up.)
            let due = last.addingTimeInterval(Self.frameInterval)
            if let planned = screen.nextFrame, planned <= due { return nil }
            screen.nextFrame = due
            return due
        }
        draw(&screen, now: now)
        guard !screen.progress.uploads.isEmpty else {
            screen.nextFrame = nil
            return nil
        }
        let refresh = now.addingTimeInterval(Self.refreshInterval)
        screen.nextFrame = refresh
        return refresh
    }

    /// Comes back at `target` for a frame, unless another frame was drawn or the run finished in the meantime.
    private func schedule(_ target: Date) {
        let delay = max(0, target.timeIntervalSince(clock()))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            let next: Date? = screen.withLock { screen in
                guard !screen.finished, screen.nextFrame == target else { return nil }
                screen.nextFrame = nil
                return frame(&screen)
            }
            if let next { schedule(next) }
        }
    }

    /// Writes the pending permanent lines and the live rows over the previous frame, in one write.
    private func draw(_ screen: inout Screen, now: Date) {
        let terminal = size()
        let rows = SyncProgressView.render(
            screen.progress, now: now, columns: terminal.columns, maxRows: max(2, terminal.rows - 1))
        var text = Self.cursorUp(screen.drawnRows) + "\r"
        if !screen.pendingLines.isEmpty {
            // A permanent line may wrap onto rows of the old frame: clear them all first.
            text += "\u{1B}[J"
            for line in screen.pendingLines { text += line + "\n" }
            screen.pendingLines = []
        }
        for row in rows { text += row + "\u{1B}[K\n" }
        text += "\u{1B}[J"
        screen.drawnRows = rows.count
        screen.lastFrame = now
        console.out(text)
    }

    /// The line left above the live area when a recipe finishes: the plain line, its outcome coloured unless
    /// `NO_COLOR` is set.
    private func permanentLine(_ event: SyncEvent) -> String {
        let message = SyncEventText.message(event, dialect: dialect, server: server)
        guard colour else { return SyncEventText.prefix(event) + message }
        let code: String
        switch event.kind {
        case .done: code = "32"
        case .failed: code = "31"
        default: code = "33"
        }
        return SyncEventText.prefix(event) + "\u{1B}[\(code)m" + message + "\u{1B}[0m"
    }

    private static func cursorUp(_ rows: Int) -> String { rows > 0 ? "\u{1B}[\(rows)A" : "" }
}
