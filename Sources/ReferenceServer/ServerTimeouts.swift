/// How long the server waits for a client before it gives up on a connection, and for its connections when it stops.
///
/// The reasons behind the defaults are in docs/recipes-server.md ("Timeouts").
public struct ServerTimeouts: Sendable, Equatable {
    /// A connection with no request in progress (and no complete request head arriving) is closed after this long.
    public var idle: Duration
    /// A request body that receives no byte for this long, or fewer than `minimumBodyRate` bytes per second over a
    /// period this long, is ended with `408` and the connection closed.
    public var body: Duration
    /// The least body bytes per second a client must send, measured over each `body` period (0: any byte will do).
    public var minimumBodyRate: Int64
    /// After SIGTERM (or `stop()`), requests in progress get this long to finish; then their connections are closed.
    public var drain: Duration

    /// 60 s idle, 30 s body periods at 1 KiB/s, 10 s drain.
    public static let standard = ServerTimeouts(idle: .seconds(60), body: .seconds(30), minimumBodyRate: 1024, drain: .seconds(10))

    /// Creates a set of timeouts; every duration must be positive and the rate not negative.
    public init(idle: Duration, body: Duration, minimumBodyRate: Int64, drain: Duration) {
        self.idle = idle
        self.body = body
        self.minimumBodyRate = minimumBodyRate
        self.drain = drain
    }

    /// The least body bytes a period of `body` must bring: the rate times the period, at least one byte.
    public var minimumBytesPerBodyPeriod: Int64 {
        let seconds = Double(body.milliseconds) / 1000
        return max(1, Int64((Double(minimumBodyRate) * seconds).rounded(.up)))
    }
}
