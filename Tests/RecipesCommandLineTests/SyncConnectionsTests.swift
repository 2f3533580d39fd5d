import Foundation
import RecipeSync
import RecipesTestSupport
import Testing
@testable import RecipesCommandLine

/// The connections `recipes sync` and `recipes sync --watch` give their runs: `sync.jobs` to start with and
/// `sync.max_connections` at most from config.toml (the larger of the two when jobs is larger), `--jobs N` exactly N.
@Suite("sync and sync --watch: connections from sync.jobs and sync.max_connections, --jobs exact")
struct SyncConnectionsTests {
    /// One row: what config.toml sets (nil: the default), `--jobs`, and the run's jobs, `maxConnections` and ceiling.
    struct Row: Sendable, CustomTestStringConvertible {
        var jobs: String?
        var maxConnections: String?
        var chosen: Int?
        var expected: (jobs: Int, maxConnections: Int, ceiling: Int)

        var testDescription: String {
            "sync.jobs \(jobs ?? "default"), sync.max_connections \(maxConnections ?? "default"), "
                + "--jobs \(chosen.map(String.init) ?? "none")"
        }
    }

    static let rows: [Row] = [
        Row(jobs: nil, maxConnections: nil, chosen: nil, expected: (4, 16, 16)),
        Row(jobs: nil, maxConnections: "6", chosen: nil, expected: (4, 6, 6)),
        Row(jobs: nil, maxConnections: "64", chosen: nil, expected: (4, 64, 64)),
        Row(jobs: "8", maxConnections: "6", chosen: nil, expected: (8, 6, 8)),  // jobs is the floor
        Row(jobs: nil, maxConnections: "6", chosen: 3, expected: (3, 3, 3)),
        Row(jobs: nil, maxConnections: "6", chosen: 10, expected: (10, 10, 10)),
        Row(jobs: nil, maxConnections: nil, chosen: 3, expected: (3, 3, 3)),
    ]

    /// A home whose config.toml names a server and sets the row's keys.
    func home(_ row: Row, in dir: TemporaryDirectory) throws -> CommandContext {
        try ClientConfiguration.write(.serverURL, value: "http://127.0.0.1:9", home: dir.home, environment: [:])
        if let jobs = row.jobs { try ClientConfiguration.write(.syncJobs, value: jobs, home: dir.home, environment: [:]) }
        if let maxConnections = row.maxConnections {
            try ClientConfiguration.write(.syncMaxConnections, value: maxConnections, home: dir.home, environment: [:])
        }
        return CommandContext(home: dir.home, environment: [:], console: CapturingConsole())
    }

    func check(_ options: SyncOptions, _ row: Row) {
        #expect(options.jobs == row.expected.jobs)
        #expect(options.maxConnections == row.expected.maxConnections)
        #expect(options.connectionCeiling == row.expected.ceiling)
    }

    @Test("recipes sync takes its connections from config.toml, --jobs N is exactly N", arguments: rows)
    func sync(row: Row) throws {
        let dir = TemporaryDirectory()
        let context = try home(row, in: dir)
        let invocation = SyncInvocation(jobs: row.chosen, mode: .plain)
        let options = try invocation.options(configuration: context.configuration(), store: context.openStore())
        check(options, row)
    }

    @Test("recipes sync --watch takes its connections from config.toml, --jobs N is exactly N", arguments: rows)
    func watch(row: Row) throws {
        let dir = TemporaryDirectory()
        let context = try home(row, in: dir)
        check(try WatchInvocation(jobs: row.chosen, mode: .plain).configuration(context).options, row)
    }
}
