import Foundation
import GRDB
import Locking
import RecipesTestSupport
import Testing

@Suite("Several recipes processes write one home at once: nothing confirmed is lost, the database stays whole")
struct ParallelWritersTests {
    @Test("REPL writers on pipes, each process reopening the database to write, beside status and list readers")
    func replWritersLoseNothing() throws {
        let client = Client()
        try client.edit(["new Soup"])
        let writers = 3
        let sessionsPerWriter = 25
        let confirmed = Locked<[String]>([])
        let failures = Locked<[String]>([])
        let readersStop = Locked(false)
        let executable = builtProduct("recipes")
        let environment = client.environment
        @Sendable func run(_ arguments: [String], input: String? = nil) -> ToolResult? {
            try? ChildProcess(executable, arguments, environment: environment, input: input).result(timeout: 60)
        }
        let group = DispatchGroup()
        for writer in 1...writers {
            group.enter()
            Thread {
                defer { group.leave() }
                for session in 1...sessionsPerWriter {
                    // Each session opens the database read-only, then read-write at its first change.
                    let text = "w\(writer)-\(session)"
                    guard let result = run(["edit"], input: "list\ningredient add 1 \(text)\n") else { continue }
                    if result.status == 0 && result.stderr.isEmpty {
                        confirmed.withLock { $0.append(text) }
                    } else {
                        failures.withLock { $0.append("\(text): \(result)") }
                    }
                }
            }.start()
        }
        for command in [["status"], ["list"]] {
            group.enter()
            Thread {
                defer { group.leave() }
                while !readersStop.withLock({ $0 }) {
                    if let result = run(command), result.status != 0 {
                        failures.withLock { $0.append("\(command): \(result)") }
                    }
                }
            }.start()
        }
        while confirmed.withLock({ $0.count }) + failures.withLock({ $0.count }) < writers * sessionsPerWriter {
            pause(0.1)
        }
        readersStop.withLock { $0 = true }
        #expect(group.wait(timeout: .now() + 120) == .success)

        #expect(failures.withLock { $0 }.isEmpty, "every command succeeded")
        let database = try DatabaseQueue(path: client.databasePath)
        let check = try database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(check == ["ok"])
        let stored = Set(try database.read { db in try String.fetchAll(db, sql: "SELECT text FROM ingredients") })
        let lost = confirmed.withLock { $0 }.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "confirmed edits missing: \(lost)")
        #expect(confirmed.withLock { $0.count } == writers * sessionsPerWriter)
    }
}
