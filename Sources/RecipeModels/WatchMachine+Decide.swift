import Foundation

extension WatchMachine {
    /// What `event` at `now` does to `state`: the next state and the actions, in order.
    public static func decide(_ state: State, _ event: Event, now: Date) -> Transition {
        var decision = Decision(state: state, now: now)
        decision.handle(event)
        return Transition(state: decision.state, actions: decision.actions)
    }

    /// The delay before renewing a long poll after `failures` failures in a row: 1 s, doubling, at most
    /// `longestLongPollDelay`; a `Retry-After` the server gave wins when it is longer (up to `longestRetryAfter`).
    public static func longPollDelay(failures: Int, retryAfter: TimeInterval?) -> TimeInterval {
        let doubling = min(longestLongPollDelay, pow(2, Double(max(0, min(failures, 30) - 1))))
        guard let retryAfter, retryAfter.isFinite else { return doubling }
        return max(doubling, min(max(0, retryAfter), longestRetryAfter))
    }

    /// The delay before the connect probe asks again for a server that could not be reached while work waits, after
    /// `probes` probes in a row found it so: 2 s after none or one, then doubling, at most `longestOfflineProbeDelay`.
    public static func offlineProbeDelay(probes: Int) -> TimeInterval {
        min(longestOfflineProbeDelay, firstOfflineProbeDelay * pow(2, Double(max(0, min(probes, 30) - 1))))
    }
}

/// One decision under way: the state as it changes and the actions gathered.
private struct Decision {
    var state: WatchMachine.State
    let now: Date
    var actions: [WatchMachine.Action] = []

    init(state: WatchMachine.State, now: Date) {
        self.state = state
        self.now = now
    }

    mutating func handle(_ event: WatchMachine.Event) {
        switch state.phase {
        case .stopped:
            return
        case .stopping:
            // Only the end of the interrupted pass matters now.
            if case .passEnded = event { stop() }
            return
        case .idle, .syncing:
            break
        }
        switch event {
        case .started:
            startPass()
        case .localEdit:
            askForPass()
        case .networkChanged:
            networkChanged()
        case .reachabilityAnswered(let reachable):
            reachabilityAnswered(reachable)
        case .longPollAnswered(let answer):
            longPollAnswered(answer)
        case .passEnded(let end, let movedCursor):
            passEnded(end, movedCursor: movedCursor)
        case .timerFired:
            state.timer = nil
            guard state.network != .offline, state.halted == nil else { return }
            askForPass()
        case .hangUp:
            if state.phase == .syncing {
                state.reloadWanted = true
                state.passWanted = true
            } else {
                actions.append(.reloadConfiguration)
                state.halted = nil
                state.network = .unknown
                startPass()
            }
        case .terminate:
            cancelLongPoll()
            cancelTimer()
            state.debounce = nil
            if state.phase == .syncing {
                actions.append(.interruptPass)
                state.phase = .stopping
            } else {
                stop()
            }
        }
    }

    // MARK: Passes

    /// A pass now, or one more after the pass under way.
    mutating func askForPass() {
        if state.phase == .syncing {
            state.passWanted = true
        } else {
            startPass()
        }
    }

    /// Starts a pass: it pulls (so the long poll has nothing to add meanwhile) and re-arms the timer when it ends.
    mutating func startPass() {
        cancelLongPoll()
        cancelTimer()
        state.debounce = nil
        state.passWanted = false
        state.networkChangedDuringPass = false
        if state.retryProbe != nil {
            state.retryProbe = nil
            actions.append(.cancelReachability)
        }
        state.phase = .syncing
        actions.append(.startPass)
    }

    mutating func passEnded(_ end: WatchMachine.PassEnd, movedCursor: Bool) {
        guard state.phase == .syncing else { return }
        state.phase = .idle
        let networkChanged = state.networkChangedDuringPass
        state.networkChangedDuringPass = false
        if state.changesAnnounced {
            // The long poll said "changes": only a pull that moved the cursor proves it; a page the cursor had passed
            // or one the feed does not list is no change, and the next long poll backs off as after a failure.
            state.changesAnnounced = false
            state.longPollFailures = movedCursor ? 0 : state.longPollFailures + 1
        }
        switch end {
        case .done, .backoff:
            state.network = .reachable
            state.halted = nil
            state.offlineProbes = 0
        case .waitingForNetwork:
            state.network = .offline
            state.halted = nil
        case .credentialsRefused:
            state.halted = .credentialsRefused
        case .setupError:
            state.halted = .setupError
        }
        if state.reloadWanted {
            state.reloadWanted = false
            actions.append(.reloadConfiguration)
            state.halted = nil
            state.network = .unknown
            startPass()
            return
        }
        // What asked for a pass meanwhile is served now, unless a person must act first.
        if state.passWanted, state.halted == nil {
            startPass()
            return
        }
        state.passWanted = false
        switch end {
        case .done:
            renewLongPoll()
        case .backoff(let until):
            renewLongPoll()
            armTimer(at: until)
        case .waitingForNetwork(let unsent):
            // With work waiting, the server is asked again after a back-off (it may come back with no network change
            // here); the notice that came during the pass may have been the network coming back: asked sooner.
            if networkChanged {
                if unsent { state.retryProbe = now }  // asked at the debounce's end (below), and again if need be
                debounceNetworkChange()
            } else if unsent {
                scheduleProbe()
            }
        case .credentialsRefused, .setupError:
            break
        }
    }

    // MARK: The network

    mutating func networkChanged() {
        guard state.halted == nil else { return }
        if state.phase == .syncing {
            state.networkChangedDuringPass = true
        } else {
            debounceNetworkChange()
        }
    }

    /// Puts the reachability question off until the notices have been quiet for `debounce`, at most
    /// `longestDebounce` after the first of the burst.
    mutating func debounceNetworkChange() {
        let since = state.debounce?.since ?? now
        let until = min(now + WatchMachine.debounce, since + WatchMachine.longestDebounce)
        state.debounce = WatchMachine.Debounce(since: since, until: until)
        // One question at a time: it replaces the probe pending, which is asked again after it if need be.
        if state.retryProbe != nil { state.retryProbe = until }
        actions.append(.askReachability(at: until))
    }

    /// Asks again, after the back-off of the probes before, whether the server can be reached (work waits to be sent).
    mutating func scheduleProbe() {
        let time = now + WatchMachine.offlineProbeDelay(probes: state.offlineProbes)
        state.retryProbe = time
        actions.append(.askReachability(at: time))
    }

    mutating func reachabilityAnswered(_ reachable: Bool) {
        state.debounce = nil
        // A pass under way finds out for itself; a halted watcher waits for a person.
        guard state.phase == .idle, state.halted == nil else { return }
        // Work waits when a probe was pending, or a retry was armed (the server went while a recipe waited its turn).
        let probing = state.retryProbe != nil || state.timer != nil
        state.retryProbe = nil
        if reachable {
            if state.network == .reachable {
                // Still reachable, perhaps along another route: the long poll's connection may be gone with the old one.
                renewLongPoll()
            } else {
                startPass()
            }
        } else {
            state.network = .offline
            cancelLongPoll()
            cancelTimer()
            if probing {
                state.offlineProbes += 1
                scheduleProbe()
            }
        }
    }

    // MARK: The long poll

    mutating func longPollAnswered(_ answer: WatchMachine.LongPollAnswer) {
        // An answer that overtook its cancellation (a pass started, the network went) is old news.
        guard state.longPolling, state.phase == .idle else { return }
        switch answer {
        case .changes:
            // Its failures are forgiven once the pass's pull has moved the cursor (`passEnded`).
            state.longPolling = false
            startPass()
            state.changesAnnounced = true
        case .refused:
            // The pass reports it (and halts); should the pass get through, the next long poll waits its turn.
            state.longPolling = false
            state.longPollFailures += 1
            startPass()
        case .empty:
            state.longPollFailures = 0
            startLongPoll(at: now)
        case .failed(let retryAfter):
            state.longPollFailures += 1
            let delay = WatchMachine.longPollDelay(failures: state.longPollFailures, retryAfter: retryAfter)
            startLongPoll(at: now + delay)
        case .unreachable:
            // Whether the server or the whole network is gone, the reachability answer says; no debounce needed. Counted
            // as a failure: should the question find the server reachable, the renewal backs off.
            state.longPolling = false
            state.longPollFailures += 1
            state.debounce = WatchMachine.Debounce(since: now, until: now)
            actions.append(.askReachability(at: now))
        }
    }

    /// Starts the long poll now, or after the back-off of the failures before.
    mutating func renewLongPoll() {
        let failures = state.longPollFailures
        startLongPoll(at: failures == 0 ? now : now + WatchMachine.longPollDelay(failures: failures, retryAfter: nil))
    }

    mutating func startLongPoll(at time: Date) {
        state.longPolling = true
        actions.append(.startLongPoll(at: time))
    }

    mutating func cancelLongPoll() {
        guard state.longPolling else { return }
        state.longPolling = false
        actions.append(.cancelLongPoll)
    }

    // MARK: The timer and stopping

    mutating func armTimer(at time: Date) {
        guard state.timer != time else { return }
        state.timer = time
        actions.append(.armTimer(at: time))
    }

    mutating func cancelTimer() {
        guard state.timer != nil else { return }
        state.timer = nil
        actions.append(.cancelTimer)
    }

    mutating func stop() {
        state.phase = .stopped
        actions.append(.stop)
    }
}
