import Foundation

/// How the pull finds recipes deleted in Mealie, which deletes for good and leaves nothing in its list to say so:
/// compare the ids it lists with the recipes the sync knows are there (docs/mealie.md, "Deletions"). Plain functions,
/// tested from tables (`DeletionCheckTests`).
public enum DeletionCheck {
    /// Whether the ids must be listed: Mealie counts another number of recipes than the sync knows to be there.
    ///
    /// Asked after a complete pull of the changes, when every recipe Mealie had then is known (new ones came with
    /// the changes). Equal counts then mean nothing known is missing, unless a recipe was deleted and another made
    /// between the pull and the count; the next run, which knows the new one, sees the difference. A deletion may
    /// thus be found a run late, never a recipe taken for deleted.
    public static func needsListing(mealieCount: Int, knownInMealie: Int) -> Bool {
        mealieCount != knownInMealie
    }

    /// One page of the id listing (`recipeIDs(after:pageSize:)`): its ids, the id to list after next, and whether
    /// more follow.
    public struct Step: Sendable, Equatable {
        /// The page's ids, in order.
        public var ids: [UUID]
        /// The id to ask for the next page after (the last of this one; the same as asked when the page is empty).
        public var next: UUID?
        /// Whether Mealie has more recipes after `next`.
        public var more: Bool

        /// Creates a step.
        public init(ids: [UUID], next: UUID?, more: Bool) {
            self.ids = ids
            self.next = next
            self.more = more
        }
    }

    /// Checks a page of the id listing asked for after `position`: every id strictly after the position and after the
    /// one before it in Mealie's id order, and a full page whenever Mealie counts more after the position.
    public static func step(_ page: RecipePage, after position: UUID?, pageSize: Int) -> Result<Step, MealieAnswerError> {
        let fail = { (detail: String) in
            Result<Step, MealieAnswerError>.failure(MealieAnswerError(status: 200, request: "the recipe list", problem: .inconsistent(detail)))
        }
        var previous = position
        var ids: [UUID] = []
        ids.reserveCapacity(page.items.count)
        for item in page.items {
            if let previous, !(previous.lowercased < item.id.lowercased) {
                return fail("recipe \(item.id.lowercased) is not after \(previous.lowercased) in id order")
            }
            previous = item.id
            ids.append(item.id)
        }
        let more = page.total > page.items.count
        if more && page.items.count < min(max(pageSize, 1), MealieServer.maxPageSize) {
            return fail("\(page.items.count) recipes on a page of \(pageSize) while \(page.total) are left")
        }
        return .success(Step(ids: ids, next: previous, more: more))
    }

    /// The recipes deleted in Mealie: those the sync knew to be there when the listing began (`known`) that a complete
    /// listing did not name. A recipe made after the listing began is not in `known`, so it is never taken for deleted.
    public static func deleted(known: Set<UUID>, listed: Set<UUID>) -> Set<UUID> {
        known.subtracting(listed)
    }
}
