import Foundation
import RecipeModels
import RecipeStore
import RecipeSync

/// The watcher's work under way — the pass, the long poll, the retry timer, the reachability question — each a task
/// that ends by putting one event on the watcher's stream. Owned by the watcher's loop, which alone starts and
/// cancels them; a new one of a kind replaces the one before.
struct WatchChores {
    let store: RecipeStore
    private(set) var configuration: WatchConfiguration
    let output: any WatchOutput
    let events: AsyncStream<WatchMachine.Event>.Continuation

    private var pass: (pass: WatchPass, task: Task<Void, Never>)?
    private var longPoll: Task<Void, Never>?
    private var timer: Task<Void, Never>?
    private var question: Task<Void, Never>?
    /// The long poll of this configuration's server, made at its first use.
    private var poller: LongPoll?

    init(
        store: RecipeStore, configuration: WatchConfiguration, output: any WatchOutput,
        events: AsyncStream<WatchMachine.Event>.Continuation
    ) {
        self.store = store
        self.configuration = configuration
        self.output = output
        self.events = events
    }

    /// Uses `configuration` from now on (the next pass, the next long poll).
    mutating func reconfigure(_ configuration: WatchConfiguration) {
        self.configuration = configuration
        poller = nil
    }

    /// Performs `action`, which `event` led to.
    mutating func perform(_ action: WatchMachine.Action, because event: WatchMachine.Event) {
        let events = self.events
        let now = configuration.settings.now
        switch action {
        case .startPass:
            output.notice(.passStarted(reason: Self.reason(event)))
            let started = WatchPass(
                store: store, settings: configuration.settings, options: configuration.options, output: output)
            let output = self.output
            pass = (started, Task {
                let (summary, end, movedCursor) = await started.perform()
                if let summary { output.finish(summary) }
                if case .setupError(let message) = end { output.notice(.passFailed(message)) }
                events.yield(.passEnded(end, movedCursor: movedCursor))
            })
        case .interruptPass:
            pass?.pass.run.interrupt()
        case .startLongPoll(let time) where configuration.settings.kind == .mealie:
            // Mealie has no long poll: the watcher pulls every `mealiePullInterval` instead (a pass), besides the
            // passes edits, the network's return and retry timers start (docs/mealie.md, "Sync with Mealie").
            longPoll?.cancel()
            let interval = configuration.mealiePullInterval
            longPoll = Task {
                guard await Self.sleep(until: time.addingTimeInterval(interval), now: now) else { return }
                events.yield(.longPollAnswered(.changes))
            }
        case .startLongPoll(let time):
            longPoll?.cancel()
            let poller = longPollOfServer()
            let store = self.store
            longPoll = Task {
                guard await Self.sleep(until: time, now: now) else { return }
                guard let poller, let cursor = try? store.feedCursor() else {
                    events.yield(.longPollAnswered(.failed(retryAfter: nil)))
                    return
                }
                guard let answer = await poller.ask(after: cursor), !Task.isCancelled else { return }
                events.yield(.longPollAnswered(answer))
            }
        case .cancelLongPoll:
            longPoll?.cancel()
            longPoll = nil
        case .armTimer(let time):
            timer?.cancel()
            timer = Task {
                guard await Self.sleep(until: time, now: now) else { return }
                events.yield(.timerFired)
            }
        case .cancelTimer:
            timer?.cancel()
            timer = nil
        case .askReachability(let time):
            question?.cancel()
            let settings = configuration.settings
            question = Task {
                guard await Self.sleep(until: time, now: now) else { return }
                var reachable = false
                if let api = settings.api {
                    // Asked after the network changed (or the long poll could not connect): what was learnt before
                    // says nothing about the network now.
                    settings.reachability.forgetEvidence()
                    reachable = await settings.reachability.isReachable(api.baseURL)
                }
                guard !Task.isCancelled else { return }
                events.yield(.reachabilityAnswered(reachable))
            }
        case .cancelReachability:
            question?.cancel()
            question = nil
        case .reloadConfiguration, .stop:
            break  // the watcher's loop does these
        }
    }

    /// Lets go of the long poll's HTTP client (its thread wakes once a second even with nothing to send) while the
    /// server cannot be reached; the next long poll makes a new one.
    mutating func releaseLongPollClient() {
        poller = nil
    }

    /// Cancels what is still under way and waits for it (the pass has ended: the watcher stops after it).
    mutating func end() async {
        for task in [longPoll, timer, question].compactMap({ $0 }) { task.cancel() }
        for task in [pass?.task, longPoll, timer, question].compactMap({ $0 }) { await task.value }
        pass = nil
        longPoll = nil
        timer = nil
        question = nil
    }

    /// The long poll of the configured server, made once per configuration; nil when there is no server or no client
    /// can be made for it (the pass reports why).
    private mutating func longPollOfServer() -> LongPoll? {
        if let poller { return poller }
        guard let api = configuration.settings.api else { return nil }
        poller = try? LongPoll(settings: configuration.settings, api: api, wait: configuration.longPollWait)
        return poller
    }

    /// Sleeps until `time` by the wall clock `now`, read again at least every `WallClockSleep.slice` (a clock moved
    /// forward wakes it then); false when the task was cancelled meanwhile.
    private static func sleep(until time: Date, now: @Sendable () -> Date) async -> Bool {
        while !Task.isCancelled, let delay = WallClockSleep.next(until: time, now: now()) {
            try? await Task.sleep(for: .milliseconds(Int64((delay * 1000).rounded(.up))))
        }
        return !Task.isCancelled
    }

    /// Why a pass starts, in a word, from the event that started it.
    static func reason(_ event: WatchMachine.Event) -> String {
        switch event {
        case .started: "start"
        case .localEdit: "edit"
        case .networkChanged, .reachabilityAnswered: "network"
        case .longPollAnswered: "server"
        case .passEnded: "follow-up"
        case .timerFired: "retry"
        case .hangUp: "reload"
        case .terminate: "stop"
        }
    }
}
