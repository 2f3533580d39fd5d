import Testing
import Transport

/// How many transfers run at once on a link, from a table: the floor on loopback, more on a long round trip, never
/// more than the ceiling; a measured rate counts instead of the assumed one.
@Suite("ConnectionPlan: connections adapt to the round trip, within the floor and the setting")
struct ConnectionPlanTests {
    @Test("round trip and rate → connections")
    func table() {
        let rows: [(roundTrip: Duration?, rate: Double?, floor: Int, ceiling: Int, expected: Int, why: String)] = [
            (nil, nil, 4, 16, 4, "nothing measured: the floor"),
            (.microseconds(80), nil, 4, 16, 4, "loopback: the floor"),
            (.milliseconds(2), nil, 4, 16, 4, "a LAN: the floor"),
            (.milliseconds(20), nil, 4, 16, 5, "20 ms at the assumed 100 Mbit/s: 1 + 0.02 × 12.5 MB/s / 64 KiB = 4.8"),
            (.milliseconds(100), nil, 4, 16, 16, "100 ms at the assumed rate wants 20: the ceiling"),
            (.milliseconds(100), 2_500_000, 4, 16, 5, "100 ms at a measured 20 Mbit/s: 1 + 0.1 × 2.5 MB/s / 64 KiB = 4.8"),
            (.milliseconds(100), nil, 4, 64, 21, "a higher setting allows more"),
            (.milliseconds(100), nil, 8, 4, 8, "a ceiling below the floor: the floor"),
            (.milliseconds(100), 0, 4, 16, 16, "a rate of nothing measured is no measurement"),
            (.seconds(1_000_000), nil, 4, 16, 16, "an absurd round trip: the ceiling"),
            (.zero, nil, 0, 16, 1, "never fewer than one"),
        ]
        for row in rows {
            #expect(ConnectionPlan.connections(roundTrip: row.roundTrip, bytesPerSecond: row.rate,
                                               floor: row.floor, ceiling: row.ceiling) == row.expected, "\(row.why)")
        }
    }
}
