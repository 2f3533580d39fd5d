import Foundation
import Locking
import RecipeModels

/// `recipes sync` with stdout not a terminal: one plain line per event, e.g.
/// `#3 Tomato soup: image: 50% (128.0 KiB of 256.0 KiB)`, then one summary line.
///
/// Progress lines are thinned to at most one per second per recipe, the first a second after its step started
/// (the start line already says what is being sent), and the line that reaches 100% only after an earlier progress
/// line of that step: a quick upload shows its start and its outcome, a slow one its progress too. The clock is the
/// events' own `time`, so the result does not depend on when the lines are written.
final class PlainSyncOutput: SyncOutput {
    /// Per recipe: when its step started or its last progress line was printed, and which progress lines were.
    private struct Shown {
        var lastProgress: Date?
        var anyShown = false
        var finalShown = false
    }

    /// The shortest gap between two progress lines of one recipe.
    static let progressInterval: TimeInterval = 1

    private let console: any Console
    /// The words of the commands the lines advise.
    private let dialect: CommandDialect
    /// The kind of server the run syncs with, whose versions the lines show in its words.
    private let server: ServerKind
    /// What each recipe last showed, and the recipes left for the network (one line at the end); held while
    /// writing, so that lines never interleave.
    private let state = Locked(State())

    private struct State {
        var shown: [Int64: Shown] = [:]
        var offline = OfflineRecipes()
    }

    init(console: any Console, dialect: CommandDialect = .shell, server: ServerKind = .http) {
        self.console = console
        self.dialect = dialect
        self.server = server
    }

    func emit(_ event: SyncEvent) {
        state.withLock { state in
            if state.offline.take(event) { return }
            switch event.kind {
            case .progress:
                // Without a start event (not seen, or the output began mid-step) the first line shows at once.
                var entry = state.shown[event.id] ?? Shown()
                let bytes = event.bytes ?? 0
                if let total = event.total, bytes >= total {
                    guard !entry.finalShown, entry.anyShown || entry.lastProgress == nil else { return }
                    entry.finalShown = true
                } else if let last = entry.lastProgress,
                    event.time.timeIntervalSince(last) < Self.progressInterval
                {
                    return
                }
                entry.lastProgress = event.time
                entry.anyShown = true
                state.shown[event.id] = entry
            case .start:
                state.shown[event.id] = Shown(lastProgress: event.time)  // a new step or attempt starts its own progress
            case .retry:
                state.shown[event.id] = nil
            case .done, .failed, .cancelled, .offline, .skipped, .pulled, .merged, .conflict, .removed, .downloaded:
                state.shown[event.id] = nil
            }
            console.out(SyncEventText.line(event, dialect: dialect, server: server) + "\n")
        }
    }

    /// The one line standing for the recipes left for the network, if any (for a REPL job, whose last line is its
    /// own).
    var offlineLine: String? { state.withLock { $0.offline.line } }

    func finish(_ summary: SyncSummary) {
        state.withLock { state in
            let offline = state.offline.line.map { $0 + "\n" } ?? ""
            console.out(offline + SyncEventText.summary(summary, dialect: dialect, server: server) + "\n")
        }
    }
}
