import Foundation
import MealieAPI
import Testing

@Suite("DeletionCheck: recipes deleted in Mealie found by comparing ids")
struct DeletionCheckTests {
    @Test("The ids are listed only when Mealie's count differs from the recipes known to be there", arguments: [
        (10, 10, false), (9, 10, true), (11, 10, true), (0, 0, false), (0, 3, true),
    ])
    func needsListing(mealieCount: Int, known: Int, listing: Bool) {
        #expect(DeletionCheck.needsListing(mealieCount: mealieCount, knownInMealie: known) == listing)
    }

    @Test("Deleted: known before the listing and absent from it; a recipe made meanwhile or unknown is never deleted",
          arguments: [
              ([1, 2, 3], [1, 2, 3], [Int]()),        // nothing deleted
              ([1, 2, 3], [1, 3], [2]),               // one deleted
              ([1, 2, 3], [1, 2, 3, 4], []),          // one made in Mealie meanwhile: not known, not deleted
              ([1, 2], [], [1, 2]),                   // Mealie emptied
              ([], [5, 6], []),                       // a first pull knows nothing yet
              ([1, 2, 3], [3, 4], [1, 2]),
          ])
    func deleted(known: [Int], listed: [Int], deleted: [Int]) {
        #expect(DeletionCheck.deleted(known: Set(known.map(Stamps.id)), listed: Set(listed.map(Stamps.id)))
            == Set(deleted.map(Stamps.id)))
    }

    @Test("Listing pages follow ids in order from the position, and say where the next page starts")
    func steps() throws {
        let first = try DeletionCheck.step(RecipePage(total: 5, items: [Stamps.stamp(1, "09.0"), Stamps.stamp(2, "01.0")]),
                                           after: nil, pageSize: 2).get()
        #expect(first == DeletionCheck.Step(ids: [Stamps.id(1), Stamps.id(2)], next: Stamps.id(2), more: true))
        let last = try DeletionCheck.step(RecipePage(total: 1, items: [Stamps.stamp(7, "01.0")]), after: Stamps.id(2), pageSize: 2).get()
        #expect(last == DeletionCheck.Step(ids: [Stamps.id(7)], next: Stamps.id(7), more: false))
        let empty = try DeletionCheck.step(RecipePage(total: 0, items: []), after: Stamps.id(7), pageSize: 2).get()
        #expect(empty == DeletionCheck.Step(ids: [], next: Stamps.id(7), more: false))
    }

    @Test("A page out of id order, repeating the position, or short while more are counted is refused", arguments: [
        ([3, 2], 0, 5), ([2], 2, 5), ([1], 2, 5), ([3], 0, 2),
    ])
    func refused(ids: [Int], after: Int, total: Int) {
        let page = RecipePage(total: total, items: ids.map { Stamps.stamp($0, "01.0") })
        let result = DeletionCheck.step(page, after: after == 0 ? nil : Stamps.id(after), pageSize: 2)
        guard case .failure(let error) = result, case .inconsistent = error.problem else {
            Issue.record("accepted \(result)")
            return
        }
    }
}
