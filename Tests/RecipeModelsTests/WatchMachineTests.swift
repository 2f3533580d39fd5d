import Foundation
import Testing
@testable import RecipeModels

@Suite("The watcher's decisions: every event in every state, as values")
struct WatchMachineTests {
    typealias State = WatchMachine.State
    typealias Action = WatchMachine.Action

    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let later = now + 120

    /// A state with `change` applied to an idle watcher that reached the server and is long polling.
    static func idle(_ change: (inout State) -> Void = { _ in }) -> State {
        var state = State()
        state.network = .reachable
        state.longPolling = true
        change(&state)
        return state
    }

    /// A watcher running a pass (no long poll, no timer: a pass cancels both).
    static func syncing(_ change: (inout State) -> Void = { _ in }) -> State {
        var state = State()
        state.phase = .syncing
        state.network = .reachable
        change(&state)
        return state
    }

    /// An idle watcher that found the server unreachable.
    static func offline(_ change: (inout State) -> Void = { _ in }) -> State {
        var state = State()
        state.network = .offline
        change(&state)
        return state
    }

    /// One row: a state, an event at `now`, the state after and the actions.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var before: State
        var event: WatchMachine.Event
        var after: State
        var actions: [Action]
        var testDescription: String { name }
    }

    static let table: [Row] = [
        // Starting.
        Row(name: "start: a pass at once", before: State(), event: .started,
            after: syncing { $0.network = .unknown }, actions: [.startPass]),

        // Local edits.
        Row(name: "an edit while idle: the long poll stops, a pass starts", before: idle(), event: .localEdit,
            after: syncing(), actions: [.cancelLongPoll, .startPass]),
        Row(name: "an edit while idle with a retry armed: the timer goes too (the pass re-arms it)",
            before: idle { $0.timer = later }, event: .localEdit,
            after: syncing(), actions: [.cancelLongPoll, .cancelTimer, .startPass]),
        Row(name: "an edit during a pass: one follow-up pass wanted, nothing started", before: syncing(), event: .localEdit,
            after: syncing { $0.passWanted = true }, actions: []),
        Row(name: "a second edit during a pass: still one follow-up", before: syncing { $0.passWanted = true },
            event: .localEdit, after: syncing { $0.passWanted = true }, actions: []),
        Row(name: "an edit while offline: a pass (it records the recipe as waiting for the network)",
            before: offline(), event: .localEdit, after: syncing { $0.network = .offline }, actions: [.startPass]),
        Row(name: "an edit while halted: a pass (a person asked; it reports the refusal again)",
            before: idle { $0.longPolling = false; $0.halted = .credentialsRefused }, event: .localEdit,
            after: syncing { $0.halted = .credentialsRefused }, actions: [.startPass]),
        Row(name: "an edit during a network debounce: the pass supersedes the question",
            before: offline { $0.debounce = .init(since: now, until: now + 0.5) }, event: .localEdit,
            after: syncing { $0.network = .offline }, actions: [.startPass]),

        // Passes ending.
        Row(name: "pass done: reachable, the long poll starts at once",
            before: syncing { $0.network = .unknown }, event: .passEnded(.done),
            after: idle(), actions: [.startLongPoll(at: now)]),
        Row(name: "pass done with a retry due later: long poll and the timer at the earliest nextAttemptAt",
            before: syncing(), event: .passEnded(.backoff(until: later)),
            after: idle { $0.timer = later }, actions: [.startLongPoll(at: now), .armTimer(at: later)]),
        Row(name: "pass done after long-poll failures: the long poll waits its back-off",
            before: syncing { $0.longPollFailures = 3 }, event: .passEnded(.done),
            after: idle { $0.longPollFailures = 3 }, actions: [.startLongPoll(at: now + 4)]),
        Row(name: "pass waiting for the network: offline, no long poll, no timer: it waits for a notice",
            before: syncing(), event: .passEnded(.waitingForNetwork(unsent: false)),
            after: offline(), actions: []),
        Row(name: "pass waiting for the network after a notice came during it: the question is asked after the debounce",
            before: syncing { $0.networkChangedDuringPass = true }, event: .passEnded(.waitingForNetwork(unsent: false)),
            after: offline { $0.debounce = .init(since: now, until: now + 0.5) },
            actions: [.askReachability(at: now + 0.5)]),
        Row(name: "pass waiting for the network with work unsent: the connect probe asks again after 2 s",
            before: syncing(), event: .passEnded(.waitingForNetwork(unsent: true)),
            after: offline { $0.retryProbe = now + 2 }, actions: [.askReachability(at: now + 2)]),
        Row(name: "work unsent and a notice during the pass: asked after the debounce, probing after that",
            before: syncing { $0.networkChangedDuringPass = true }, event: .passEnded(.waitingForNetwork(unsent: true)),
            after: offline { $0.debounce = .init(since: now, until: now + 0.5); $0.retryProbe = now + 0.5 },
            actions: [.askReachability(at: now + 0.5)]),
        Row(name: "the probe finds the server still gone: asked again after 2 s (1 probe so far)",
            before: offline { $0.retryProbe = now }, event: .reachabilityAnswered(false),
            after: offline { $0.offlineProbes = 1; $0.retryProbe = now + 2 }, actions: [.askReachability(at: now + 2)]),
        Row(name: "still gone after 4 probes: the delay doubles (16 s)",
            before: offline { $0.offlineProbes = 3; $0.retryProbe = now }, event: .reachabilityAnswered(false),
            after: offline { $0.offlineProbes = 4; $0.retryProbe = now + 16 }, actions: [.askReachability(at: now + 16)]),
        Row(name: "still gone after many probes: at most a minute between them",
            before: offline { $0.offlineProbes = 40; $0.retryProbe = now }, event: .reachabilityAnswered(false),
            after: offline { $0.offlineProbes = 41; $0.retryProbe = now + 60 }, actions: [.askReachability(at: now + 60)]),
        Row(name: "the probe finds the server back: a pass (no network change needed)",
            before: offline { $0.offlineProbes = 5; $0.retryProbe = now }, event: .reachabilityAnswered(true),
            after: syncing { $0.network = .offline; $0.offlineProbes = 5 }, actions: [.startPass]),
        Row(name: "the pass after the server's return gets through: the probes start over",
            before: syncing { $0.network = .offline; $0.offlineProbes = 5 }, event: .passEnded(.done),
            after: idle(), actions: [.startLongPoll(at: now)]),
        Row(name: "an edit while a probe is pending: the question is dropped, a pass starts (it finds out itself)",
            before: offline { $0.offlineProbes = 2; $0.retryProbe = now + 4 }, event: .localEdit,
            after: syncing { $0.network = .offline; $0.offlineProbes = 2 }, actions: [.cancelReachability, .startPass]),
        Row(name: "a network notice while a probe is pending: one question, after the debounce",
            before: offline { $0.offlineProbes = 2; $0.retryProbe = now + 30 }, event: .networkChanged,
            after: offline { $0.offlineProbes = 2; $0.retryProbe = now + 0.5; $0.debounce = .init(since: now, until: now + 0.5) },
            actions: [.askReachability(at: now + 0.5)]),
        Row(name: "the server gone while a retry was armed (work waits its turn): probing, not waiting for the network",
            before: idle { $0.timer = later; $0.longPolling = false; $0.debounce = .init(since: now, until: now) },
            event: .reachabilityAnswered(false),
            after: offline { $0.offlineProbes = 1; $0.retryProbe = now + 2 }, actions: [.cancelTimer, .askReachability(at: now + 2)]),
        Row(name: "credentials refused: halted, nothing more on its own",
            before: syncing(), event: .passEnded(.credentialsRefused),
            after: idle { $0.longPolling = false; $0.halted = .credentialsRefused }, actions: []),
        Row(name: "a set-up error: halted",
            before: syncing { $0.network = .unknown }, event: .passEnded(.setupError("no server")),
            after: idle { $0.network = .unknown; $0.longPolling = false; $0.halted = .setupError }, actions: []),
        Row(name: "a pass ends with edits made during it: exactly one follow-up pass, no long poll in between",
            before: syncing { $0.passWanted = true }, event: .passEnded(.done),
            after: syncing(), actions: [.startPass]),
        Row(name: "a follow-up wanted after a refusal: not run (a person must act)",
            before: syncing { $0.passWanted = true }, event: .passEnded(.credentialsRefused),
            after: idle { $0.longPolling = false; $0.halted = .credentialsRefused }, actions: []),
        Row(name: "a follow-up wanted while offline: run (the edit is recorded as waiting for the network)",
            before: syncing { $0.passWanted = true }, event: .passEnded(.waitingForNetwork(unsent: false)),
            after: syncing { $0.network = .offline }, actions: [.startPass]),
        Row(name: "a pass that succeeds clears an earlier halt",
            before: syncing { $0.halted = .credentialsRefused }, event: .passEnded(.done),
            after: idle(), actions: [.startLongPoll(at: now)]),
        Row(name: "SIGHUP during the pass: the configuration is re-read at its end, then a pass",
            before: syncing { $0.reloadWanted = true; $0.passWanted = true }, event: .passEnded(.credentialsRefused),
            after: syncing { $0.network = .unknown }, actions: [.reloadConfiguration, .startPass]),

        // Network changes.
        Row(name: "a notice while offline: the question waits for the debounce",
            before: offline(), event: .networkChanged,
            after: offline { $0.debounce = .init(since: now, until: now + 0.5) }, actions: [.askReachability(at: now + 0.5)]),
        Row(name: "another notice of the burst: the question moves later",
            before: offline { $0.debounce = .init(since: now - 0.3, until: now + 0.2) }, event: .networkChanged,
            after: offline { $0.debounce = .init(since: now - 0.3, until: now + 0.5) }, actions: [.askReachability(at: now + 0.5)]),
        Row(name: "a burst that goes on: asked at most 2 s after its first notice",
            before: offline { $0.debounce = .init(since: now - 1.8, until: now + 0.1) }, event: .networkChanged,
            after: offline { $0.debounce = .init(since: now - 1.8, until: now + 0.2) }, actions: [.askReachability(at: now + 0.2)]),
        Row(name: "a notice while reachable: asked too (the long poll's route may be gone)",
            before: idle(), event: .networkChanged,
            after: idle { $0.debounce = .init(since: now, until: now + 0.5) }, actions: [.askReachability(at: now + 0.5)]),
        Row(name: "a notice during a pass: remembered, not asked", before: syncing(), event: .networkChanged,
            after: syncing { $0.networkChangedDuringPass = true }, actions: []),
        Row(name: "a notice while halted: ignored (a person must act)",
            before: idle { $0.longPolling = false; $0.halted = .setupError }, event: .networkChanged,
            after: idle { $0.longPolling = false; $0.halted = .setupError }, actions: []),
        Row(name: "reachable again after being offline: a pass",
            before: offline { $0.debounce = .init(since: now, until: now) }, event: .reachabilityAnswered(true),
            after: syncing { $0.network = .offline }, actions: [.startPass]),
        Row(name: "still unreachable: stays offline, asks nothing more",
            before: offline { $0.debounce = .init(since: now, until: now) }, event: .reachabilityAnswered(false),
            after: offline(), actions: []),
        Row(name: "reachable while it was: the long poll is renewed on the new route",
            before: idle { $0.debounce = .init(since: now, until: now) }, event: .reachabilityAnswered(true),
            after: idle(), actions: [.startLongPoll(at: now)]),
        Row(name: "unreachable while it was reachable: offline, the long poll stops",
            before: idle(), event: .reachabilityAnswered(false),
            after: offline(), actions: [.cancelLongPoll]),
        Row(name: "an answer during a pass: the pass finds out for itself",
            before: syncing(), event: .reachabilityAnswered(false), after: syncing(), actions: []),

        // The long poll.
        Row(name: "the long poll brings changes: a pass, whose pull must prove them", before: idle { $0.longPollFailures = 2 },
            event: .longPollAnswered(.changes), after: syncing { $0.longPollFailures = 2; $0.changesAnnounced = true },
            actions: [.startPass]),
        Row(name: "the pass after the long poll's changes moved the cursor: its failures forgiven, renewed at once",
            before: syncing { $0.longPollFailures = 2; $0.changesAnnounced = true },
            event: .passEnded(.done, movedCursor: true), after: idle(), actions: [.startLongPoll(at: now)]),
        Row(name: "the long poll's changes did not move the cursor (passed already, or not in the feed): backs off as a failure",
            before: syncing { $0.changesAnnounced = true }, event: .passEnded(.done, movedCursor: false),
            after: idle { $0.longPollFailures = 1 }, actions: [.startLongPoll(at: now + 1)]),
        Row(name: "the same lie again: the delay doubles",
            before: syncing { $0.longPollFailures = 3; $0.changesAnnounced = true },
            event: .passEnded(.done, movedCursor: false),
            after: idle { $0.longPollFailures = 4 }, actions: [.startLongPoll(at: now + 8)]),
        Row(name: "a pass that no long poll started: the cursor staying put says nothing",
            before: syncing { $0.longPollFailures = 0 }, event: .passEnded(.done, movedCursor: false),
            after: idle(), actions: [.startLongPoll(at: now)]),
        Row(name: "the long poll waited in vain: renewed at once", before: idle { $0.longPollFailures = 2 },
            event: .longPollAnswered(.empty), after: idle(), actions: [.startLongPoll(at: now)]),
        Row(name: "the long poll failed: renewed after 1 s", before: idle(),
            event: .longPollAnswered(.failed(retryAfter: nil)),
            after: idle { $0.longPollFailures = 1 }, actions: [.startLongPoll(at: now + 1)]),
        Row(name: "the long poll failed again: the delay doubles", before: idle { $0.longPollFailures = 2 },
            event: .longPollAnswered(.failed(retryAfter: nil)),
            after: idle { $0.longPollFailures = 3 }, actions: [.startLongPoll(at: now + 4)]),
        Row(name: "the long poll failed with Retry-After: the server's delay when it is longer", before: idle(),
            event: .longPollAnswered(.failed(retryAfter: 30)),
            after: idle { $0.longPollFailures = 1 }, actions: [.startLongPoll(at: now + 30)]),
        Row(name: "the long poll could not connect: reachability asked at once",
            before: idle(), event: .longPollAnswered(.unreachable),
            after: idle { $0.longPolling = false; $0.longPollFailures = 1; $0.debounce = .init(since: now, until: now) },
            actions: [.askReachability(at: now)]),
        Row(name: "reachable after the long poll could not connect: renewed after its back-off, not at once",
            before: idle { $0.longPolling = false; $0.longPollFailures = 1; $0.debounce = .init(since: now, until: now) },
            event: .reachabilityAnswered(true),
            after: idle { $0.longPollFailures = 1 }, actions: [.startLongPoll(at: now + 1)]),
        Row(name: "the long poll refused: a pass (which reports the refusal)",
            before: idle(), event: .longPollAnswered(.refused),
            after: syncing { $0.longPollFailures = 1 }, actions: [.startPass]),
        Row(name: "a long poll answer after it was cancelled: old news, ignored",
            before: idle { $0.longPolling = false }, event: .longPollAnswered(.changes),
            after: idle { $0.longPolling = false }, actions: []),
        Row(name: "a long poll answer during a pass: ignored (the pass pulls)",
            before: syncing(), event: .longPollAnswered(.changes), after: syncing(), actions: []),

        // The timer.
        Row(name: "the retry comes due: a pass", before: idle { $0.timer = now }, event: .timerFired,
            after: syncing(), actions: [.cancelLongPoll, .startPass]),
        Row(name: "the timer during a pass: one follow-up", before: syncing { $0.timer = now }, event: .timerFired,
            after: syncing { $0.passWanted = true }, actions: []),
        Row(name: "the timer while offline: nothing (the network's return starts the pass)",
            before: offline { $0.timer = now }, event: .timerFired, after: offline(), actions: []),

        // Signals.
        Row(name: "SIGHUP while idle: re-read the configuration, then a pass",
            before: idle { $0.timer = later; $0.halted = .credentialsRefused },
            event: .hangUp, after: syncing { $0.network = .unknown },
            actions: [.reloadConfiguration, .cancelLongPoll, .cancelTimer, .startPass]),
        Row(name: "SIGHUP during a pass: re-read when it ends", before: syncing(), event: .hangUp,
            after: syncing { $0.reloadWanted = true; $0.passWanted = true }, actions: []),
        Row(name: "SIGTERM while idle: everything stops at once",
            before: idle { $0.timer = later; $0.debounce = .init(since: now, until: now + 0.5) }, event: .terminate,
            after: idle { $0.phase = .stopped; $0.longPolling = false }, actions: [.cancelLongPoll, .cancelTimer, .stop]),
        Row(name: "SIGTERM during a pass: the pass is interrupted, the watcher stops when it ends",
            before: syncing { $0.passWanted = true }, event: .terminate,
            after: syncing { $0.phase = .stopping; $0.passWanted = true }, actions: [.interruptPass]),
        Row(name: "the interrupted pass ends: stop, no follow-up",
            before: syncing { $0.phase = .stopping; $0.passWanted = true }, event: .passEnded(.done),
            after: syncing { $0.phase = .stopped; $0.passWanted = true }, actions: [.stop]),
        Row(name: "an edit while stopping: ignored",
            before: syncing { $0.phase = .stopping }, event: .localEdit,
            after: syncing { $0.phase = .stopping }, actions: []),
        Row(name: "a second SIGTERM while stopping: nothing more", before: syncing { $0.phase = .stopping },
            event: .terminate, after: syncing { $0.phase = .stopping }, actions: []),
        Row(name: "anything after stopping: ignored", before: idle { $0.phase = .stopped }, event: .started,
            after: idle { $0.phase = .stopped }, actions: []),
    ]

    @Test("each event in each state gives the state and the actions of the table", arguments: table)
    func transition(_ row: Row) {
        let transition = WatchMachine.decide(row.before, row.event, now: Self.now)
        #expect(transition.state == row.after)
        #expect(transition.actions == row.actions)
    }

    @Test("the long poll's back-off doubles from 1 s to 5 min; a longer Retry-After wins, up to an hour",
          arguments: [
            (1, nil, 1.0), (2, nil, 2), (3, nil, 4), (9, nil, 256), (10, nil, 300), (1000, nil, 300),
            (1, 0.2, 1), (1, 90, 90), (2, 1, 2), (1, 86_400, 3600), (1, -5, 1), (1, .infinity, 1),
          ] as [(Int, TimeInterval?, TimeInterval)])
    func longPollDelay(failures: Int, retryAfter: TimeInterval?, expected: TimeInterval) {
        #expect(WatchMachine.longPollDelay(failures: failures, retryAfter: retryAfter) == expected)
    }

    @Test("the connect probe's back-off: 2 s after none or one, doubling, at most a minute",
          arguments: [(0, 2.0), (1, 2), (2, 4), (3, 8), (5, 32), (6, 60), (1000, 60), (-3, 2)] as [(Int, TimeInterval)])
    func offlineProbeDelay(probes: Int, expected: TimeInterval) {
        #expect(WatchMachine.offlineProbeDelay(probes: probes) == expected)
    }

    @Test("a server that restarts (no network change here): with an edit waiting, probes back off, then the pass sends it")
    func serverComesBack() {
        let (state, steps) = Self.run([
            (0, .started), (1, .passEnded(.done)), (10, .longPollAnswered(.unreachable)), (10.1, .reachabilityAnswered(false)),
            (20, .localEdit), (20.5, .passEnded(.waitingForNetwork(unsent: true))),
            (22.5, .reachabilityAnswered(false)), (24.5, .reachabilityAnswered(false)), (28.5, .reachabilityAnswered(false)),
            (36.5, .reachabilityAnswered(true)),
        ])
        #expect(steps[3] == [])  // nothing to send: it waits for the network, as before
        #expect(steps[5] == [.askReachability(at: Self.now + 22.5)])
        #expect(steps[6] == [.askReachability(at: Self.now + 24.5)])
        #expect(steps[7] == [.askReachability(at: Self.now + 28.5)])
        #expect(steps[8] == [.askReachability(at: Self.now + 36.5)])
        #expect(steps[9] == [.startPass])
        #expect(steps.joined().filter { $0 == Action.startPass }.count == 3)  // the start, the edit, the return: no pass per probe
        #expect(state.phase == .syncing && state.retryProbe == nil)
    }

    @Test("a long poll that keeps announcing a change the pull never finds: each pass waits longer for the next")
    func lyingLongPoll() {
        var events: [(TimeInterval, WatchMachine.Event)] = [(0, .started), (1, .passEnded(.done, movedCursor: false))]
        for round in 0..<12 {
            events += [(Double(round) * 1000 + 2, .longPollAnswered(.changes)),
                       (Double(round) * 1000 + 3, .passEnded(.done, movedCursor: false))]
        }
        let (state, steps) = Self.run(events)
        let renewals = steps.joined().compactMap { action -> Date? in
            if case .startLongPoll(let time) = action { return time } else { return nil }
        }
        let delays = zip(renewals, events.filter { if case .passEnded = $0.1 { true } else { false } })
            .map { $0.0.timeIntervalSince(Self.now + $0.1.0) }
        #expect(delays == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300], "\(delays)")
        #expect(state.longPollFailures == 12)
    }

    /// Runs `events` from a fresh watcher at `now` plus each event's offset; the actions of each step, in order.
    static func run(_ events: [(TimeInterval, WatchMachine.Event)]) -> (State, [[Action]]) {
        var state = State()
        var steps: [[Action]] = []
        for (offset, event) in events {
            let transition = WatchMachine.decide(state, event, now: now + offset)
            state = transition.state
            steps.append(transition.actions)
        }
        return (state, steps)
    }

    @Test("a burst of edits during a pass makes exactly one more pass, then the long poll")
    func editsCoalesce() {
        let (state, steps) = Self.run([
            (0, .started), (0.1, .localEdit), (0.2, .localEdit), (0.3, .localEdit), (1, .passEnded(.done)),
            (2, .passEnded(.done)),
        ])
        #expect(steps.joined().filter { $0 == Action.startPass }.count == 2)
        #expect(steps[4] == [.startPass])
        #expect(steps[5] == [.startLongPoll(at: Self.now + 2)])
        #expect(state.phase == .idle && state.longPolling)
    }

    @Test("offline: nothing happens without a notice; the route's return is a pass after the debounce")
    func networkReturns() {
        let (state, steps) = Self.run([
            (0, .started), (1, .passEnded(.waitingForNetwork(unsent: false))),
            (60, .networkChanged), (60.1, .networkChanged), (60.6, .reachabilityAnswered(false)),
            (90, .networkChanged), (90.5, .reachabilityAnswered(true)),
        ])
        #expect(steps[1] == [])
        #expect(steps[2] == [.askReachability(at: Self.now + 60.5)])
        #expect(steps[3] == [.askReachability(at: Self.now + 60.6)])
        #expect(steps[4] == [])
        #expect(steps[5] == [.askReachability(at: Self.now + 90.5)])
        #expect(steps[6] == [.startPass])
        #expect(state.phase == .syncing)
    }

    @Test("SIGTERM during a pass: interrupted, then stopped; later events do nothing")
    func stopsCleanly() {
        let (state, steps) = Self.run([
            (0, .started), (1, .terminate), (1.1, .localEdit), (1.2, .passEnded(.done)), (2, .hangUp), (3, .timerFired),
        ])
        #expect(steps[1] == [.interruptPass])
        #expect(steps[2] == [])
        #expect(steps[3] == [.stop])
        #expect(steps[4] == [] && steps[5] == [])
        #expect(state.phase == .stopped)
    }
}
