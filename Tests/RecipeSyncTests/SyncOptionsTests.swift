import RecipeModels
import Testing
import Transport
@testable import RecipeSync

/// How many transfers a run may have in flight: `sync.jobs` is where it starts and a long round trip opens more, up to
/// `maxConnections`; a number the user chose with `--jobs` is exact on every link.
@Suite("SyncOptions: the connections a run may open")
struct SyncOptionsTests {
    @Test("sync.jobs is a floor the link may raise to 16; --jobs N is exactly N, whatever the round trip")
    func jobsExactOrAdapting() {
        let rows: [(options: SyncOptions, roundTrip: Duration?, expected: Int)] = [
            (SyncOptions(jobs: 4), nil, 4),
            (SyncOptions(jobs: 4), .milliseconds(100), 16),
            (SyncOptions(jobs: 1), .milliseconds(10), 3),
            (SyncOptions(jobs: 32), .milliseconds(100), 32),
            (SyncOptions().exactly(jobs: 1), .milliseconds(10), 1),
            (SyncOptions().exactly(jobs: 1), .milliseconds(100), 1),
            (SyncOptions().exactly(jobs: 6), .milliseconds(100), 6),
            (SyncOptions().exactly(jobs: 0), nil, 1),
        ]
        for row in rows {
            let connections = ConnectionPlan.connections(
                roundTrip: row.roundTrip, bytesPerSecond: nil, floor: row.options.jobs, ceiling: row.options.connectionCeiling)
            #expect(connections == row.expected, "jobs \(row.options.jobs), ceiling \(row.options.connectionCeiling), \(String(describing: row.roundTrip))")
        }
    }

    @Test("every wait a run records lies within SyncInfo.longestWait, beyond which a wait is taken for a clock set back")
    func waitsWithinTheLongest() throws {
        let home = try ClientHome()
        let run = SyncRun(store: home.store, settings: SyncSettings(api: nil), options: SyncOptions(), emit: { _ in })
        let policy = run.retryPolicy
        let longest = max(policy.maxRetryAfter, policy.maxDelay)
        #expect(longest <= .seconds(SyncInfo.longestWait), "a wait the run records would be taken for a clock set back")
    }
}
