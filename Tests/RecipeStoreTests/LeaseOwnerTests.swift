import Foundation
import Testing
@testable import RecipeStore
#if canImport(Glibc)
import Glibc
#endif

@Suite("LeaseOwner names a process by pid and start time")
struct LeaseOwnerTests {
    /// A stat line whose command name holds spaces and parentheses; field 22 (start time) is 987654321.
    static let trickyStat =
        "4242 (my (odd) cmd) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 987654321 12345678 300 "
        + "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0"

    @Test("the start time is field 22, counted after the last parenthesis of the command name")
    func parsesTrickyCommandName() {
        #expect(LeaseOwner.parseStartTime(stat: Self.trickyStat) == 987_654_321)
        #expect(LeaseOwner.parseStartTime(stat: "1 (init) S 1 1 1 0 -1 4 0 0 0 0 0 0 0 0 20 0 1 0 77 0 0") == 77)
    }

    @Test("a truncated or malformed stat line has no start time")
    func rejectsMalformed() {
        #expect(LeaseOwner.parseStartTime(stat: "4242 (cmd) S 1 2 3") == nil)
        #expect(LeaseOwner.parseStartTime(stat: "4242 cmd S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20") == nil)
        #expect(LeaseOwner.parseStartTime(stat: "") == nil)
        #expect(
            LeaseOwner.parseStartTime(stat: "1 (a) S 1 1 1 0 -1 4 0 0 0 0 0 0 0 0 20 0 1 0 notanumber 0") == nil)
    }

    @Test("this process is alive under its own owner string, and not under its pid with another start time")
    func ownProcess() throws {
        let parts = LeaseOwner.current.split(separator: ":")
        try #require(parts.count == 2, "\(LeaseOwner.current)")
        #expect(Int32(parts[0]) == getpid())
        let start = try #require(UInt64(parts[1]))
        #expect(start > 0)
        #expect(LeaseOwner.isAlive(LeaseOwner.current))
        #expect(!LeaseOwner.isAlive("\(getpid()):\(start + 1)"))  // a recycled pid is not the lease holder
    }

    @Test("a pid that does not exist is dead; an owner string that names no pid counts as alive")
    func otherOwners() {
        #expect(!LeaseOwner.isAlive("2147483646:12345"))
        #expect(LeaseOwner.isAlive("some-host:thing"))
        #expect(LeaseOwner.isAlive("garbage"))
    }
}
