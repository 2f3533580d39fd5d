/// Where a cook is in `recipes cook` on a terminal, and what each key and each passing second does: a state machine
/// `(session, event, now) -> actions`, with no screen and no clock of its own (the terminal loop draws the session
/// and gives the time).
///
/// It opens on the ingredients (mise en place); → goes to step 1 and on, ← back (from step 1 to the ingredients);
/// `i` shows all the ingredients over a step and back; `t` starts a timer for the step's first time not already
/// running (`StepDuration`); `q` quits, asking again first when a timer runs. A timer's end rings the bell and says
/// which step's time is up, until the next key.
public struct CookSession: Sendable, Equatable {
    /// What the screen shows.
    public enum Screen: Sendable, Equatable {
        /// The ingredients before step 1 (mise en place).
        case ingredients
        /// Step `n` (from 0).
        case step(Int)
        /// The ingredients over step `n` (from 0), which → ← and `i` return to.
        case allIngredients(over: Int)
    }

    /// A key as the cook mode reads it.
    public enum Key: Sendable, Equatable {
        case next, back, ingredients, timer, quit
    }

    /// What the session is told.
    public enum Event: Sendable, Equatable {
        /// A key was pressed.
        case key(Key)
        /// Time passed (the loop's wake-up).
        case tick
    }

    /// What the loop is to do.
    public enum Action: Sendable, Equatable {
        /// Draw the session again.
        case redraw
        /// Ring the terminal's bell.
        case bell
        /// Leave the cook mode.
        case quit
    }

    /// A line said once, until the next key.
    public enum Notice: Sendable, Equatable {
        /// A timer was started.
        case timerStarted(CookTimers.Timer)
        /// Every time of the step has its timer running already; the first of them.
        case timerRunning(CookTimers.Timer)
        /// The step names no time.
        case noTime(step: Int)
        /// `t` on the ingredients: no step is shown.
        case timerNeedsStep
        /// A timer has ended.
        case timerDone(CookTimers.Timer)
        /// → on the last step.
        case lastStep
        /// The recipe has no steps to go to.
        case noSteps
        /// `q` with timers running: a second `q` quits.
        case quitWithTimers(count: Int)
    }

    /// The screen shown.
    public private(set) var screen: Screen = .ingredients
    /// The times each step names (`StepDuration.all` of each step's text).
    public let times: [[StepDuration]]
    /// The timers.
    public private(set) var timers = CookTimers()
    /// The lines said until the next key, oldest first.
    public private(set) var notices: [Notice] = []

    /// A session of a recipe whose steps name `times` (one list per step), on its ingredients.
    public init(times: [[StepDuration]]) { self.times = times }

    /// The number of steps.
    public var stepCount: Int { times.count }

    /// Applies `event` at `now` (the time since the cook mode began).
    public mutating func handle(_ event: Event, at now: Duration) -> [Action] {
        switch event {
        case .tick:
            let ended = timers.advance(to: now)
            var actions: [Action] = []
            for timer in ended { notices.append(.timerDone(timer)) }
            if !ended.isEmpty { actions.append(.bell) }
            if !ended.isEmpty || !timers.running.isEmpty { actions.append(.redraw) }
            return actions
        case .key(let key):
            let armed = notices.contains { if case .quitWithTimers = $0 { true } else { false } }
            notices.removeAll()
            // Time has passed since the last tick: a timer that ended meanwhile is said now.
            var actions = handle(.tick, at: now).filter { $0 == .bell }
            switch key {
            case .quit:
                if timers.running.isEmpty || armed { return actions + [.quit] }
                notices.append(.quitWithTimers(count: timers.running.count))
            case .next:
                switch screen {
                case .ingredients:
                    if stepCount > 0 { screen = .step(0) } else { notices.append(.noSteps) }
                case .step(let step):
                    if step + 1 < stepCount { screen = .step(step + 1) } else { notices.append(.lastStep) }
                case .allIngredients(over: let step):
                    screen = .step(step)
                }
            case .back:
                switch screen {
                case .ingredients: break
                case .step(let step): screen = step == 0 ? .ingredients : .step(step - 1)
                case .allIngredients(over: let step): screen = .step(step)
                }
            case .ingredients:
                switch screen {
                case .ingredients: break
                case .step(let step): screen = .allIngredients(over: step)
                case .allIngredients(over: let step): screen = .step(step)
                }
            case .timer:
                startTimer(at: now)
            }
            actions.append(.redraw)
            return actions
        }
    }

    /// `t`: the timer of the shown step's first time not running yet.
    private mutating func startTimer(at now: Duration) {
        guard case .step(let step) = screen else {
            notices.append(.timerNeedsStep)
            return
        }
        let stepTimes = times[step]
        guard !stepTimes.isEmpty else {
            notices.append(.noTime(step: step))
            return
        }
        let part = stepTimes.indices.first { !timers.isRunning(step: step, part: $0) } ?? 0
        switch timers.start(step: step, part: part, duration: stepTimes[part], at: now) {
        case .started(let timer): notices.append(.timerStarted(timer))
        case .alreadyRunning(let timer): notices.append(.timerRunning(timer))
        }
    }
}
