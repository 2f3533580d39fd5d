/// One direction of the emulated link: a bottleneck of `rate` bits per second with a drop-tail queue of at most
/// `queueLimit` bytes, then a fixed propagation `delay`. A pure model fed arrival times: what to send, and when.
///
/// A packet arriving at `t` starts serialising when the bottleneck is free (`max(t, busyUntil)`), takes
/// `bytes × 8 / rate` to serialise, and is delivered `delay` after it has been serialised. The bytes still waiting
/// at `t` are those of `busyUntil - t` at the rate; a packet that would push them past `queueLimit` is dropped, as a
/// router's full queue drops it. Delivery times only grow, so each direction is one FIFO.
struct LinkDirection {
    /// One-way propagation delay, in nanoseconds.
    let delay: UInt64
    /// Bits per second; 0 means no rate limit.
    let rate: UInt64
    /// The most bytes waiting for the bottleneck.
    let queueLimit: UInt64
    /// When the bottleneck finishes the last packet accepted (nanoseconds, monotonic clock).
    private(set) var busyUntil: UInt64 = 0
    /// Packets accepted and dropped, for the summary.
    private(set) var accepted = 0
    private(set) var dropped = 0

    init(delay: UInt64, rate: UInt64, queueLimit: UInt64) {
        self.delay = delay
        self.rate = rate
        self.queueLimit = queueLimit
    }

    /// The delivery time of a packet of `bytes` arriving at `now`, or nil when the queue is full and it is dropped.
    mutating func admit(bytes: Int, at now: UInt64) -> UInt64? {
        guard rate > 0 else {
            accepted += 1
            return now + delay
        }
        let waiting = busyUntil > now ? (busyUntil - now) * rate / 8_000_000_000 : 0
        guard waiting + UInt64(bytes) <= queueLimit else {
            dropped += 1
            return nil
        }
        let serialisation = UInt64(bytes) * 8_000_000_000 / rate
        busyUntil = max(now, busyUntil) + serialisation
        accepted += 1
        return busyUntil + delay
    }
}
