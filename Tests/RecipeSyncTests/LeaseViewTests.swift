import Foundation
import RecipeStore
import Testing

@testable import RecipeSync

/// The JSON step's decision from the poller's last report, without I/O.
@Suite("LeaseView")
struct LeaseViewTests {
    static let claimed = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a fresh claim vouches for the lease before any poll; past the freshness the database decides")
    func claimVouches() {
        let view = LeaseView()
        #expect(view.mayUpload(7, claimedAt: Self.claimed, now: Self.claimed.addingTimeInterval(0.5)) == true)
        #expect(view.mayUpload(7, claimedAt: Self.claimed, now: Self.claimed.addingTimeInterval(LeaseView.freshness)) == nil)
    }

    @Test("a recent poll vouches for an old claim; a stale one does not")
    func pollVouches() {
        var view = LeaseView()
        view.update(LeaseReport(held: [7]), at: Self.claimed.addingTimeInterval(30))
        #expect(view.mayUpload(7, claimedAt: Self.claimed, now: Self.claimed.addingTimeInterval(30.2)) == true)
        #expect(view.mayUpload(7, claimedAt: Self.claimed, now: Self.claimed.addingTimeInterval(32)) == nil)
    }

    @Test("a clock gone back vouches for nothing: the database decides")
    func clockBack() {
        var view = LeaseView()
        view.update(LeaseReport(held: [7]), at: Self.claimed.addingTimeInterval(0.05))
        #expect(view.mayUpload(7, claimedAt: Self.claimed, now: Self.claimed.addingTimeInterval(-5)) == nil)
    }

    @Test("a recipe a poll saw deleted never sends its JSON, however fresh the lease; others still may")
    func deletedRefuses() {
        var view = LeaseView()
        view.update(LeaseReport(held: [7, 8], deleted: [7]), at: Self.claimed)
        view.update(LeaseReport(held: [7, 8]), at: Self.claimed.addingTimeInterval(0.05))  // a later poll keeps it
        #expect(view.mayUpload(7, claimedAt: Self.claimed, now: Self.claimed.addingTimeInterval(0.1)) == false)
        #expect(view.mayUpload(8, claimedAt: Self.claimed, now: Self.claimed.addingTimeInterval(0.1)) == true)
    }
}
