import Foundation
import RecipeStore

/// What the run's poller last read about its leases (`RecipeStore.leaseReport`), for the JSON step to decide from
/// without a database read per recipe: that read, on the transfer loop's thread, was a twentieth of a 1,000-recipe
/// sync's CPU.
///
/// The lease of a living process is taken over by no other process before it lapses, and a poll that finds a lease
/// gone stops its chain (`SyncRun.poll`). So while the lease is known held — by the recipe's claim or a poll less than
/// `freshness` ago — the JSON may go out unless a poll saw the recipe deleted. A deletion or takeover made after the
/// last poll is seen by the next one, a poll interval later; until then a JSON already on its way goes out, and
/// the deletion reaches the server with the next run, as one made during the upload itself always did.
struct LeaseView: Sendable, Equatable {
    /// When the last poll read the leases.
    var polledAt: Date?
    /// The recipes a poll saw deleted while this run held their lease.
    var deleted: Set<Int64> = []

    /// How long a claim or a poll vouches for a lease held: far longer than a poll interval (50 ms), far shorter
    /// than a lease (60 s). Past it (the database too busy for the poller, say) the database decides.
    static let freshness: TimeInterval = 1

    /// Records a poll's report read at `now`. (A lease it found gone is not kept here: the poll stops that chain,
    /// whose request then never starts.)
    mutating func update(_ report: LeaseReport, at now: Date) {
        polledAt = now
        deleted.formUnion(report.deleted)
    }

    /// Whether the JSON of recipe `id`, claimed at `claimedAt`, may go out at `now`: false once a poll saw it
    /// deleted; true while its claim or the last poll is recent enough; nil when neither is (or the clock went back),
    /// for the database to decide (`RecipeStore.mayUpload`).
    func mayUpload(_ id: Int64, claimedAt: Date, now: Date) -> Bool? {
        if deleted.contains(id) { return false }
        let age = now.timeIntervalSince(max(claimedAt, polledAt ?? claimedAt))
        return age >= 0 && age < Self.freshness ? true : nil
    }
}
