import Foundation
import RecipeModels
import Synchronization

/// `recipes sync` with stdout not a terminal: one plain line per event, e.g.
/// `#3 Tomato soup: image: 50% (128.0 KiB of 256.0 KiB)`, then one summary line.
///
/// Progress lines are thinned to at most one per second per recipe, plus the line that reaches 100%; the clock is
/// the events' own `time`, so the result does not depend on when the lines are written.
final class PlainSyncOutput: SyncOutput {
    /// Per recipe: when its last progress line was printed, and whether its 100% line was.
    private struct Shown {
        var lastProgress: Date?
        var finalShown = false
    }

    /// The shortest gap between two progress lines of one recipe.
    static let progressInterval: TimeInterval = 1

    private let console: any Console
    /// What each recipe last showed; held while writing, so that lines never interleave.
    private let shown = Mutex([Int64: Shown]())

    init(console: any Console) {
        self.console = console
    }

    func emit(_ event: SyncEvent) {
        shown.withLock { shown in
            switch event.kind {
            case .progress:
                var entry = shown[event.id] ?? Shown()
                let bytes = event.bytes ?? 0
                if let total = event.total, bytes >= total {
                    guard !entry.finalShown else { return }
                    entry.finalShown = true
                } else if let last = entry.lastProgress,
                    event.time.timeIntervalSince(last) < Self.progressInterval
                {
                    return
                }
                entry.lastProgress = event.time
                shown[event.id] = entry
            case .start, .retry:
                shown[event.id] = nil  // a new step or attempt starts its own progress
            case .done, .failed, .cancelled, .offline, .skipped:
                shown[event.id] = nil
            }
            console.out(SyncEventText.line(event) + "\n")
        }
    }

    func finish(_ summary: SyncSummary) {
        shown.withLock { _ in console.out(SyncEventText.summary(summary) + "\n") }
    }
}
