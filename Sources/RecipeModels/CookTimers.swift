/// The step timers of a cook mode: a value that starts timers and, as time passes, says which have ended.
///
/// Time is given, never read: every call takes `now`, the time since the cook mode began on a monotonic clock, so
/// the countdown is decided the same way in a test as at the stove.
public struct CookTimers: Sendable, Equatable {
    /// One running timer.
    public struct Timer: Sendable, Equatable {
        /// The index of the step whose time it counts.
        public var step: Int
        /// Which of the step's times (`StepDuration.all`) it counts, from 0.
        public var part: Int
        /// The time the step names.
        public var duration: StepDuration
        /// When it ends, on the cook mode's clock.
        public var endsAt: Duration

        /// Creates a timer.
        public init(step: Int, part: Int, duration: StepDuration, endsAt: Duration) {
            self.step = step
            self.part = part
            self.duration = duration
            self.endsAt = endsAt
        }

        /// The whole seconds left at `now`, rounded up (a timer with 0.2 s left shows 00:01), 0 once it has ended.
        public func secondsLeft(at now: Duration) -> Int {
            let left = endsAt - now
            guard left > .zero else { return 0 }
            let (seconds, attoseconds) = left.components
            return Int(seconds) + (attoseconds > 0 ? 1 : 0)
        }

        /// The seconds left at which the shortest time of a range is reached (`10-12 minutes`: 120), nil for one time.
        public var checkFrom: Int? {
            duration.isRange ? duration.longest - duration.shortest : nil
        }
    }

    /// The timers running, in the order they were started.
    public private(set) var running: [Timer] = []

    /// No timers.
    public init() {}

    /// What happened to a timer.
    public enum Change: Sendable, Equatable {
        /// It was started.
        case started(Timer)
        /// It was already running: not started again.
        case alreadyRunning(Timer)
    }

    /// Starts the timer of `part` of step `step` (`duration`) at `now`, unless that one runs already.
    public mutating func start(step: Int, part: Int, duration: StepDuration, at now: Duration) -> Change {
        if let timer = running.first(where: { $0.step == step && $0.part == part }) { return .alreadyRunning(timer) }
        let timer = Timer(step: step, part: part, duration: duration, endsAt: now + .seconds(duration.longest))
        running.append(timer)
        return .started(timer)
    }

    /// Removes the timers that have ended by `now` and returns them, in the order they end.
    public mutating func advance(to now: Duration) -> [Timer] {
        let ended = running.filter { $0.endsAt <= now }.sorted { $0.endsAt < $1.endsAt }
        running.removeAll { $0.endsAt <= now }
        return ended
    }

    /// Whether the timer of `part` of step `step` is running.
    public func isRunning(step: Int, part: Int) -> Bool {
        running.contains { $0.step == step && $0.part == part }
    }

    /// When what a countdown shows next changes after `now` (a whole second of a timer passes, or one ends); nil
    /// when none runs.
    public func nextChange(after now: Duration) -> Duration? {
        running.map { timer in
            // The shown seconds change when the time left crosses a whole second.
            let left = timer.endsAt - now
            let (_, attoseconds) = left.components
            let fraction = attoseconds > 0 ? Duration(secondsComponent: 0, attosecondsComponent: attoseconds) : .seconds(1)
            return now + (left > .zero ? fraction : .zero)
        }.min()
    }
}
