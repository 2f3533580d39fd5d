import Foundation
import Locking
import RecipeModels
import RecipeStore
import RecipeSync

/// One sync pass of the watcher: a `SyncRun` (pull, then push) through its public API, as `recipes sync
/// --background` runs it, and what its end means to the watcher.
struct WatchPass: Sendable {
    /// The run; `interrupt()` stops it cleanly.
    let run: SyncRun
    private let store: RecipeStore
    private let settings: SyncSettings
    private let sawOffline: Locked<Bool>

    /// Prepares the pass on `store`; its events go to `output`.
    init(store: RecipeStore, settings: SyncSettings, options: SyncOptions, output: any WatchOutput) {
        let sawOffline = Locked(false)
        self.sawOffline = sawOffline
        self.store = store
        self.settings = settings
        run = SyncRun(store: store, settings: settings, options: options) { event in
            if event.kind == .offline { sawOffline.withLock { $0 = true } }
            output.emit(event)
        }
    }

    /// Runs the pass to its end and says how it ended: the summary (nil when it could not start), the end, and
    /// whether its pull moved the feed's cursor (always so with a Mealie, which has no feed).
    func perform() async -> (summary: SyncSummary?, end: WatchMachine.PassEnd, movedCursor: Bool) {
        let cursorBefore = try? store.feedCursor()
        let summary: SyncSummary
        do {
            summary = try await run.run()
        } catch {
            let message = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
            return (nil, .setupError(message), false)
        }
        let movedCursor = settings.kind == .mealie || cursorBefore == nil || (try? store.feedCursor()) != cursorBefore
        let now = settings.now()
        let nextRetry = try? store.earliestRetry(after: now, owner: settings.owner)
        let unsent = (try? store.hasDueWork(at: now)) ?? true
        let end = Self.end(
            of: summary, sawOffline: sawOffline.withLock { $0 }, nextRetry: nextRetry ?? nil, unsent: unsent)
        return (summary, end, movedCursor)
    }

    /// What a pass that returned `summary` means to the watcher: refused credentials first; then the server
    /// unreachable (an `offline` event, or a pull stopped because the server could not be reached), with work left to
    /// send when a recipe is due (`unsent`) or a retry comes due (`nextRetry`); then a retry coming due at
    /// `nextRetry`; else done. (Failed recipes and conflicts wait for a person and need nothing of the watcher.)
    static func end(of summary: SyncSummary, sawOffline: Bool, nextRetry: Date?, unsent: Bool) -> WatchMachine.PassEnd {
        if summary.credentialsRefused { return .credentialsRefused }
        let waiting = WatchMachine.PassEnd.waitingForNetwork(unsent: unsent || nextRetry != nil || summary.waiting > 0)
        if sawOffline { return waiting }
        switch summary.pullStopped?.cause {
        case .unreachable: return waiting
        case .interrupted, .failed, nil: break
        }
        if let nextRetry { return .backoff(until: nextRetry) }
        return .done
    }
}
