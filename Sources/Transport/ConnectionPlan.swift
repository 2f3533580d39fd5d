/// How many transfers a client runs at once on a link: enough to keep the link busy while each request waits a round
/// trip for its answer, never fewer than the floor nor more than the ceiling (the setting). A plain function of what
/// was measured, tested from a table.
///
/// A connection sends one request at a time and then idles for a round trip: with transfers of `transfer` bytes at
/// `rate` bytes/s, about `1 + roundTrip × rate / transfer` of them in flight fill the link. On loopback or a LAN the
/// round trip is nothing and the floor stands; 100 ms to another continent asks for many more.
public enum ConnectionPlan {
    /// The rate assumed while none was measured (100 Mbit/s): the plan then errs towards more connections, which a
    /// slower link only queues at its bottleneck.
    public static let assumedBytesPerSecond: Double = 12_500_000
    /// The size of a typical transfer of a sync (a photo of a recipe, compressed).
    public static let typicalTransfer: Double = 64 * 1024

    /// The transfers to run at once after measuring `roundTrip` (nil: not measured) and `bytesPerSecond` (nil: not
    /// measured), within `floor...ceiling`.
    public static func connections(
        roundTrip: Duration?, bytesPerSecond: Double?, floor: Int, ceiling: Int
    ) -> Int {
        let low = max(1, floor)
        let high = max(low, ceiling)
        guard let roundTrip, roundTrip > .zero else { return low }
        let seconds = Double(roundTrip.components.seconds) + Double(roundTrip.components.attoseconds) / 1e18
        let rate = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil } ?? assumedBytesPerSecond
        let wanted = 1 + seconds * rate / typicalTransfer
        guard wanted.isFinite else { return high }
        return min(high, max(low, Int(wanted.rounded(.up))))
    }
}
