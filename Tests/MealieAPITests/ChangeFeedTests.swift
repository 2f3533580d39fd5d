import Foundation
import MealieAPI
import Testing

/// Stamps for the tables: recipe `n` has id `00000000-0000-4000-8000-00000000000n` (ids in the order of `n`).
enum Stamps {
    static func id(_ number: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", number))!
    }

    static func at(_ text: String) -> MealieTimestamp {
        MealieTimestamp(parsing: "2026-11-27T10:00:\(text)Z")!
    }

    static func stamp(_ number: Int, _ time: String) -> RecipeStamp {
        RecipeStamp(id: id(number), slug: "recipe-\(number)", name: "Recipe \(number)", updatedAt: at(time), imageKey: nil)
    }
}

@Suite("ChangeFeed: the pull's window on Mealie's recipes by (updatedAt, id)")
struct ChangeFeedTests {
    @Test("The query after a cursor is strict at the microsecond, and breaks ties of the same instant by id")
    func queryFilter() {
        #expect(ChangeFeed.queryFilter(after: ChangeCursor(updatedAt: Stamps.at("01.000001"), id: nil))
            == #"updatedAt > "2026-11-27T10:00:01.000001Z""#)
        #expect(ChangeFeed.queryFilter(after: ChangeCursor(updatedAt: Stamps.at("01.000001"), id: Stamps.id(7)))
            == #"(updatedAt > "2026-11-27T10:00:01.000001Z") OR (updatedAt = "2026-11-27T10:00:01.000001Z" AND id > "00000000-0000-4000-8000-000000000007")"#)
    }

    @Test("A pull starts the overlap before its saved cursor, from the first recipe without one, and saves the later cursor")
    func overlap() {
        let saved = ChangeCursor(updatedAt: Stamps.at("10.000000"), id: Stamps.id(3))
        #expect(ChangeFeed.start(from: nil) == nil)
        #expect(ChangeFeed.start(from: saved, overlap: .seconds(5)) == ChangeCursor(updatedAt: Stamps.at("05.000000"), id: nil))
        #expect(ChangeFeed.start(from: saved, overlap: .zero) == saved)
        let reread = ChangeCursor(updatedAt: Stamps.at("07.000000"), id: Stamps.id(1))
        #expect(ChangeFeed.cursorToSave(saved: saved, reached: reread) == saved)   // the overlap never moves it back
        let later = ChangeCursor(updatedAt: Stamps.at("12.000000"), id: Stamps.id(1))
        #expect(ChangeFeed.cursorToSave(saved: saved, reached: later) == later)
        #expect(ChangeFeed.cursorToSave(saved: nil, reached: later) == later)
        #expect(ChangeFeed.cursorToSave(saved: saved, reached: nil) == saved)
    }

    @Test("Mealie's order: by instant, then by id; no id comes first")
    func order() {
        let early = ChangeCursor(updatedAt: Stamps.at("01.000000"), id: Stamps.id(9))
        let tieLow = ChangeCursor(updatedAt: Stamps.at("01.000001"), id: Stamps.id(1))
        let tieHigh = ChangeCursor(updatedAt: Stamps.at("01.000001"), id: Stamps.id(2))
        let start = ChangeCursor(updatedAt: Stamps.at("01.000001"), id: nil)
        #expect(early < start && start < tieLow && tieLow < tieHigh)
        #expect(!(tieHigh < tieLow) && !(start < start))
    }

    /// One row: the page's stamps (number, time), Mealie's total, the page size, the position asked after; the
    /// expected next position (number, time) and `more`, or the start of the error.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var items: [(Int, String)]
        var total: Int
        var pageSize: Int
        var after: (Int?, String)?
        var next: (Int?, String)?
        var more: Bool
        var error: String?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a first page, more to come", items: [(1, "01.000000"), (2, "02.000000")], total: 5, pageSize: 2,
            after: nil, next: (2, "02.000000"), more: true),
        Row(name: "the last page", items: [(3, "03.000000")], total: 1, pageSize: 2,
            after: (2, "02.000000"), next: (3, "03.000000"), more: false),
        Row(name: "nothing new: the cursor stays", items: [], total: 0, pageSize: 100,
            after: (3, "03.000000"), next: (3, "03.000000"), more: false),
        Row(name: "the same instant, ids in order, across the page boundary", items: [(4, "05.000000"), (6, "05.000000")],
            total: 3, pageSize: 2, after: (2, "05.000000"), next: (6, "05.000000"), more: true),
        Row(name: "a microsecond later is later", items: [(1, "05.000001")], total: 1, pageSize: 10,
            after: (9, "05.000000"), next: (1, "05.000001"), more: false),
        Row(name: "an item at the cursor itself (a filter ignored)", items: [(2, "02.000000")], total: 1, pageSize: 10,
            after: (2, "02.000000"), next: nil, more: false, error: "recipe 00000000-0000-4000-8000-000000000002 written at"),
        Row(name: "an item before the cursor", items: [(5, "01.000000")], total: 1, pageSize: 10,
            after: (2, "02.000000"), next: nil, more: false, error: "recipe 00000000-0000-4000-8000-000000000005 written at"),
        Row(name: "items out of order (an order ignored)", items: [(1, "03.000000"), (2, "02.000000")], total: 2, pageSize: 10,
            after: nil, next: nil, more: false, error: "recipe 00000000-0000-4000-8000-000000000002 written at"),
        Row(name: "a tie out of id order", items: [(3, "03.000000"), (2, "03.000000")], total: 2, pageSize: 10,
            after: nil, next: nil, more: false, error: "recipe 00000000-0000-4000-8000-000000000002 written at"),
        Row(name: "a short page while more are counted", items: [(1, "01.000000")], total: 7, pageSize: 2,
            after: nil, next: nil, more: false, error: "1 recipes on a page of 2 while 7 are left"),
    ]

    @Test("Each page is checked against the position and itself, and says where the next starts", arguments: rows)
    func step(row: Row) {
        let page = RecipePage(total: row.total, items: row.items.map { Stamps.stamp($0.0, $0.1) })
        let after = row.after.map { ChangeCursor(updatedAt: Stamps.at($0.1), id: $0.0.map(Stamps.id)) }
        switch ChangeFeed.step(page, after: after, pageSize: row.pageSize) {
        case .success(let step):
            #expect(row.error == nil)
            #expect(step.items == page.items)
            #expect(step.next == row.next.map { ChangeCursor(updatedAt: Stamps.at($0.1), id: $0.0.map(Stamps.id)) })
            #expect(step.more == row.more)
        case .failure(let error):
            guard case .inconsistent(let detail) = error.problem, let expected = row.error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(detail.hasPrefix(expected))
        }
    }

    @Test("A page of 1,000 is full when more were asked for: the request asks for at most 1,000")
    func clampedPageSize() throws {
        let items = (1...1000).map { Stamps.stamp($0, String(format: "01.%06d", $0)) }
        let step = try ChangeFeed.step(RecipePage(total: 1500, items: items), after: nil, pageSize: 5000).get()
        #expect(step.more)
        #expect(step.next == ChangeCursor(after: items[999]))
    }

    @Test("A listed recipe is news unless its updatedAt is the one recorded (the sync's own write comes back)")
    func news() {
        let stamp = Stamps.stamp(1, "01.000002")
        #expect(!ChangeFeed.isNews(stamp, known: Stamps.at("01.000002")))
        #expect(ChangeFeed.isNews(stamp, known: Stamps.at("01.000001")))
        #expect(ChangeFeed.isNews(stamp, known: nil))
    }

    @Test("A cursor kept as text reads back as the same cursor; text that is no cursor is refused")
    func cursorAsText() throws {
        let id = try #require(UUID(uuidString: "6C287C71-7993-479E-8872-F4AF1626F916"))
        let stamp = try #require(MealieTimestamp(parsing: "2026-11-27T10:15:56.212913Z"))
        for cursor in [ChangeCursor(updatedAt: stamp, id: id), ChangeCursor(updatedAt: stamp, id: nil)] {
            #expect(ChangeCursor(text: cursor.description) == cursor)
        }
        #expect(ChangeCursor(updatedAt: stamp, id: id).description == "2026-11-27T10:15:56.212913Z/6c287c71-7993-479e-8872-f4af1626f916")
        for text in ["", "garbage", "2026-11-27T10:15:56.212913Z/", "2026-11-27T10:15:56.212913Z/not-a-uuid", "/6c287c71-7993-479e-8872-f4af1626f916"] {
            #expect(ChangeCursor(text: text) == nil, "\(text)")
        }
    }
}
