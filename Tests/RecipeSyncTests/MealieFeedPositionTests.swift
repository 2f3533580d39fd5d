import Foundation
import Testing
@testable import RecipeSync

/// The positions a Mealie pull hands out only grow, whatever the 5-second overlap reads again: every page passes the
/// contract feed's check (`FeedProgress.judge`).
struct MealieFeedPositionTests {
    static let server = "6f1c3a52-0d7e-4b1a-9a3e-2c5d7f9e1b24"

    @Test("Pages read again in the overlap, or whose recipes this device had seen, move the pull forward", arguments: [
        // (asked from, versions read, the last recipe listed, more follow)
        (Int64(0), [Int64(10), 20, 30], Int64?(30), false),
        (100, [95, 97, 120], 120, true),    // two read again in the overlap, one new
        (100, [], 98, true),                // a page of recipes seen already, all in the overlap
        (100, [], nil, false),              // nothing listed
        (100, [100, 100], 100, true),       // equal instants
    ])
    func forward(_ position: Int64, _ versions: [Int64], _ reached: Int64?, _ more: Bool) {
        var seq = position
        var changes: [ServerChange] = []
        for (index, version) in versions.enumerated() {
            seq = MealieFeedPosition.of(version, after: seq)
            changes.append(ServerChange(seq: seq, uuid: UUID(), version: version + Int64(index), recipe: nil))
        }
        let next = MealieFeedPosition.next(after: position, last: seq, reached: reached, more: more)
        let page = ChangesPage(server: Self.server, changes: changes, next: next, more: more)
        #expect(FeedProgress.judge(page, since: position, cursorServer: Self.server, serverChanges: 0) == .proceed)
        #expect(next >= position)
        if let last = versions.last, last > position { #expect(changes.last?.seq == max(last, seq)) }
    }
}
