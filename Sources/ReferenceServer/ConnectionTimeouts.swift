import NIOCore

/// The timeout decisions of one connection: a value fed the connection's HTTP events that says when to look again
/// (`deadline`) and what to do then (`expire(now:)`). `ConnectionTimeoutHandler` runs it; the tests drive it from a table.
///
/// - Idle: with no request in progress, the connection is closed `idle` after its last activity (it opened, a
///   request part arrived, an answer ended). A request head that arrives only in part does not count as activity,
///   so a head sent a byte at a time is also bounded by `idle`.
/// - Body: while a request body is being read, it must bring a byte at least every `body`, and at least
///   `minimumBytesPerPeriod` in each period of `body` from its head on; otherwise the body is ended (`endBody`).
///   Only time the server spends waiting for the client counts: from the moment data arrives until the server asks
///   for more (`readRequested`, withheld while the route has not consumed what it has) the body clocks stand still,
///   so a busy server never blames a client for its own slowness.
/// - Handling: once a request has been read, the answer takes as long as the route needs (long polls, faults).
/// - Draining: after the server was asked to stop (`quiesce`), the connection is closed `drain` later whatever it does.
struct ConnectionTimeouts: Equatable {
    /// What to do when a deadline passes.
    enum Action: Equatable {
        /// Nothing (yet): ask again at the next `deadline`.
        case none
        /// End the request whose body is too slow: its route answers `408`, then the connection closes.
        case endBody
        /// Close the connection.
        case close(Reason)
    }

    /// Why a connection is closed.
    enum Reason: Equatable {
        /// No request for `idle`.
        case idle
        /// The server is stopping and `drain` has passed.
        case drained
    }

    let idle: TimeAmount
    let body: TimeAmount
    let minimumBytesPerPeriod: Int64

    /// Request heads read whose answer has not ended.
    private(set) var answersPending = 0
    /// Whether a request head was read and its end not yet.
    private(set) var readingBody = false
    /// Whether `endBody` was already decided for the request being read.
    private(set) var bodyEnded = false
    private var lastActivity: NIODeadline
    private var lastBodyByte: NIODeadline
    private var periodStart: NIODeadline
    private var bytesInPeriod: Int64 = 0
    private var drainDeadline: NIODeadline?
    private let drain: TimeAmount
    /// Since when the server has not asked for more data (nil while it waits for the client).
    private(set) var pausedSince: NIODeadline?

    /// The state of a connection opened at `now`.
    init(_ timeouts: ServerTimeouts, now: NIODeadline) {
        idle = .nanoseconds(Int64(timeouts.idle.milliseconds) * 1_000_000)
        body = .nanoseconds(Int64(timeouts.body.milliseconds) * 1_000_000)
        drain = .nanoseconds(Int64(timeouts.drain.milliseconds) * 1_000_000)
        minimumBytesPerPeriod = timeouts.minimumBytesPerBodyPeriod
        lastActivity = now
        lastBodyByte = now
        periodStart = now
    }

    /// Data arrived (any part of a request): until the server asks for more, the body clocks stand still.
    mutating func dataArrived(now: NIODeadline) {
        if pausedSince == nil { pausedSince = now }
    }

    /// The server asks for more data: the body deadlines move on by the time it did not ask.
    mutating func readRequested(now: NIODeadline) {
        guard let pausedSince else { return }
        let paused = now - pausedSince
        lastBodyByte = lastBodyByte + paused
        periodStart = periodStart + paused
        self.pausedSince = nil
    }

    /// A request head arrived: its body (if any) is read from now on.
    mutating func requestHead(now: NIODeadline) {
        answersPending += 1
        readingBody = true
        bodyEnded = false
        lastActivity = now
        lastBodyByte = now
        periodStart = now
        bytesInPeriod = 0
    }

    /// Body bytes arrived.
    mutating func bodyBytes(_ count: Int, now: NIODeadline) {
        lastActivity = now
        guard count > 0 else { return }
        lastBodyByte = now
        bytesInPeriod += Int64(count)
    }

    /// The request's end arrived: its body is complete.
    mutating func requestEnd(now: NIODeadline) {
        readingBody = false
        lastActivity = now
    }

    /// An answer was sent completely.
    mutating func answerEnd(now: NIODeadline) {
        answersPending = max(0, answersPending - 1)
        lastActivity = now
    }

    /// The server is stopping: whatever is in progress gets `drain` to finish.
    mutating func quiesce(now: NIODeadline) {
        if drainDeadline == nil { drainDeadline = now + drain }
    }

    /// When `expire(now:)` should next be asked, or nil when nothing can time out (an answer is being prepared).
    var deadline: NIODeadline? {
        var candidates: [NIODeadline] = []
        if let drainDeadline { candidates.append(drainDeadline) }
        if readingBody, !bodyEnded {
            if pausedSince == nil { candidates.append(min(lastBodyByte + body, periodStart + body)) }
        } else if !readingBody, answersPending == 0 {
            candidates.append(lastActivity + idle)
        }
        return candidates.min()
    }

    /// What to do at `now` (called at or after `deadline`).
    mutating func expire(now: NIODeadline) -> Action {
        if let drainDeadline, now >= drainDeadline { return .close(.drained) }
        if readingBody, !bodyEnded {
            guard pausedSince == nil else { return .none }
            if now >= lastBodyByte + body {
                bodyEnded = true
                return .endBody
            }
            if now >= periodStart + body {
                guard bytesInPeriod >= minimumBytesPerPeriod else {
                    bodyEnded = true
                    return .endBody
                }
                periodStart = now
                bytesInPeriod = 0
            }
            return .none
        }
        if !readingBody, answersPending == 0, now >= lastActivity + idle { return .close(.idle) }
        return .none
    }
}
