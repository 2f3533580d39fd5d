import Foundation

/// A position in Mealie's recipes ordered by last write, then id: the pull's cursor. Mealie keeps no changes feed,
/// so its recipe list in `(updatedAt, id)` order stands in for one (docs/mealie.md, "Changes since a cursor").
public struct ChangeCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The last write seen.
    public var updatedAt: MealieTimestamp
    /// The last recipe seen among those written at `updatedAt`, in id order; nil for "before every recipe written then".
    public var id: UUID?

    /// Creates a cursor.
    public init(updatedAt: MealieTimestamp, id: UUID?) {
        self.updatedAt = updatedAt
        self.id = id
    }

    /// The cursor just after `stamp`.
    public init(after stamp: RecipeStamp) {
        self.init(updatedAt: stamp.updatedAt, id: stamp.id)
    }

    /// Mealie's order: by `updatedAt`, then by id as its lower-case text (the order SQLite's `CHAR(32)` hex and
    /// PostgreSQL's `uuid` both give); "no id" comes before every id.
    public static func < (lhs: ChangeCursor, rhs: ChangeCursor) -> Bool {
        if lhs.updatedAt != rhs.updatedAt { return lhs.updatedAt < rhs.updatedAt }
        switch (lhs.id, rhs.id) {
        case (nil, nil), (_?, nil): return false
        case (nil, _?): return true
        case (let left?, let right?): return left.lowercased < right.lowercased
        }
    }

    /// `2026-11-27T10:15:56.212913Z` or `2026-11-27T10:15:56.212913Z/<id>`: also the text a sync keeps as its opaque
    /// cursor, read back by `init?(text:)`.
    public var description: String { updatedAt.description + (id.map { "/\($0.lowercased)" } ?? "") }

    /// The cursor `description` wrote; nil for any other text.
    public init?(text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let updatedAt = MealieTimestamp(parsing: parts[0]) else { return nil }
        var id: UUID?
        if parts.count == 2 {
            guard let parsed = UUID(uuidString: parts[1]) else { return nil }
            id = parsed
        }
        self.init(updatedAt: updatedAt, id: id)
    }
}

/// The pull's window on Mealie's recipe list: the query after a cursor, the check of each page, and how far the
/// cursor moves. Plain functions, tested from tables (`ChangeFeedTests`).
public enum ChangeFeed {
    /// How far before its saved cursor a pull starts reading: a write whose transaction committed after a later
    /// write's (Mealie takes `updatedAt` before it commits) is found by the next pull as long as it committed within
    /// this much. The recipes read again cost one list item each and no `GET` (their `updatedAt` equals the base).
    public static let defaultOverlap: Duration = .seconds(5)

    /// The `queryFilter` of the recipes after `cursor`: `updatedAt > "T"`, or with an id
    /// `(updatedAt > "T") OR (updatedAt = "T" AND id > "I")`. Mealie compares to the microsecond.
    public static func queryFilter(after cursor: ChangeCursor) -> String {
        let instant = "\"\(cursor.updatedAt)\""
        guard let id = cursor.id else { return "updatedAt > \(instant)" }
        return "(updatedAt > \(instant)) OR (updatedAt = \(instant) AND id > \"\(id.lowercased)\")"
    }

    /// Where a pull's reading starts: `overlap` before the saved cursor (nil, from the first recipe, when there is
    /// none). The recipes between the start and the saved cursor are read again; `isNews` tells which still matter.
    public static func start(from saved: ChangeCursor?, overlap: Duration = defaultOverlap) -> ChangeCursor? {
        guard let saved else { return nil }
        guard overlap > .zero else { return saved }
        return ChangeCursor(updatedAt: saved.updatedAt.movedBack(by: overlap), id: nil)
    }

    /// One page read after `position`: its recipes, the position after them, and whether more follow.
    public struct Step: Sendable, Equatable {
        /// The page's recipes, in order.
        public var items: [RecipeStamp]
        /// The position after the last of them (the same position when the page is empty).
        public var next: ChangeCursor?
        /// Whether Mealie has more recipes after `next`.
        public var more: Bool

        /// Creates a step.
        public init(items: [RecipeStamp], next: ChangeCursor?, more: Bool) {
            self.items = items
            self.next = next
            self.more = more
        }
    }

    /// Checks a page asked for with `changes(after: position, pageSize:)` and says where the next one starts.
    ///
    /// Every recipe must come strictly after `position` and after the one before it; `more` is true when Mealie
    /// counts more recipes after the position than the page holds, which a full page must then be. Anything else is
    /// an answer the cursor cannot follow (a Mealie that ignored the filter or the order), refused whole.
    public static func step(_ page: RecipePage, after position: ChangeCursor?, pageSize: Int) -> Result<Step, MealieAnswerError> {
        let fail = { (detail: String) in
            Result<Step, MealieAnswerError>.failure(MealieAnswerError(status: 200, request: "the recipe list", problem: .inconsistent(detail)))
        }
        var previous = position
        for item in page.items {
            let here = ChangeCursor(after: item)
            if let previous, !(previous < here) {
                return fail("recipe \(item.id.lowercased) written at \(item.updatedAt) is not after \(previous)")
            }
            previous = here
        }
        let more = page.total > page.items.count
        if more && page.items.count < min(max(pageSize, 1), MealieServer.maxPageSize) {
            return fail("\(page.items.count) recipes on a page of \(pageSize) while \(page.total) are left")
        }
        return .success(Step(items: page.items, next: previous, more: more))
    }

    /// The cursor to save once a pull read up to `reached`: the later of it and the cursor saved before, so that the
    /// overlap never moves a saved cursor back.
    public static func cursorToSave(saved: ChangeCursor?, reached: ChangeCursor?) -> ChangeCursor? {
        guard let saved else { return reached }
        guard let reached else { return saved }
        return max(saved, reached)
    }

    /// Whether a listed recipe holds a write the sync has not seen: its `updatedAt` differs from the one the sync
    /// recorded for it (`known`, nil for a recipe it has never had). The sync's own writes come back in the list
    /// with the `updatedAt` their answers gave, and are no news.
    public static func isNews(_ stamp: RecipeStamp, known: MealieTimestamp?) -> Bool {
        stamp.updatedAt != known
    }
}
