import Testing
@testable import RecipeModels

/// One row of the list-merge table: the ingredient lists of base, mine and theirs and what the merge must give.
struct ListCase: Sendable, CustomTestStringConvertible {
    var name: String
    var base: [String]
    var mine: [String]
    var theirs: [String]
    var merged: [String]
    var conflicts: [FieldConflict] = []

    var testDescription: String { name }

    /// A single-element conflict at ingredient `number`; nil stands for removed.
    static func element(_ number: Int, base: String, mine: String?, theirs: String?) -> FieldConflict {
        FieldConflict(
            field: .ingredient(number), base: .text(base), mine: mine.map(ConflictValue.text) ?? .absent,
            theirs: theirs.map(ConflictValue.text) ?? .absent)
    }

    /// A run conflict at ingredient `number`.
    static func run(_ number: Int, base: [String], mine: [String], theirs: [String]) -> FieldConflict {
        FieldConflict(field: .ingredient(number), base: .elements(base), mine: .elements(mine), theirs: .elements(theirs))
    }
}

@Suite("Three-way merge of ingredient and step lists")
struct ListMergeTests {
    static let cases: [ListCase] = [
        ListCase(name: "unchanged on both sides", base: ["a", "b"], mine: ["a", "b"], theirs: ["a", "b"],
                 merged: ["a", "b"]),
        ListCase(name: "added here at the end", base: ["a", "b"], mine: ["a", "b", "c"], theirs: ["a", "b"],
                 merged: ["a", "b", "c"]),
        ListCase(name: "added on the server in the middle", base: ["a", "c"], mine: ["a", "c"], theirs: ["a", "b", "c"],
                 merged: ["a", "b", "c"]),
        ListCase(name: "added on both sides at different places", base: ["a", "b"], mine: ["x", "a", "b"],
                 theirs: ["a", "b", "y"], merged: ["x", "a", "b", "y"]),
        ListCase(name: "both inserted at the same place: both kept, the server's first", base: ["a", "b"],
                 mine: ["a", "m1", "m2", "b"], theirs: ["a", "t", "b"], merged: ["a", "t", "m1", "m2", "b"]),
        ListCase(name: "both appended to an empty list: the server's first", base: [], mine: ["m"], theirs: ["t"],
                 merged: ["t", "m"]),
        ListCase(name: "the same insertion on both sides is kept once", base: ["a", "b"], mine: ["a", "x", "b"],
                 theirs: ["a", "x", "b"], merged: ["a", "x", "b"]),
        ListCase(name: "changed here", base: ["a", "b", "c"], mine: ["a", "B", "c"], theirs: ["a", "b", "c"],
                 merged: ["a", "B", "c"]),
        ListCase(name: "changed on the server while added here", base: ["a", "b", "c"], mine: ["a", "b", "c", "d"],
                 theirs: ["a", "B", "c"], merged: ["a", "B", "c", "d"]),
        ListCase(name: "the same change on both sides", base: ["a", "b", "c"], mine: ["a", "B", "c"],
                 theirs: ["a", "B", "c"], merged: ["a", "B", "c"]),
        ListCase(name: "changed differently on both sides", base: ["a", "b", "c"], mine: ["a", "M", "c"],
                 theirs: ["a", "T", "c"], merged: ["a", "M", "c"],
                 conflicts: [ListCase.element(2, base: "b", mine: "M", theirs: "T")]),
        ListCase(name: "removed here, untouched on the server", base: ["a", "b", "c"], mine: ["a", "c"],
                 theirs: ["a", "b", "c"], merged: ["a", "c"]),
        ListCase(name: "removed on the server, untouched here", base: ["a", "b", "c"], mine: ["a", "b", "c"],
                 theirs: ["a", "c"], merged: ["a", "c"]),
        ListCase(name: "removed on both sides", base: ["a", "b", "c"], mine: ["a", "c"], theirs: ["a", "c"],
                 merged: ["a", "c"]),
        ListCase(name: "changed here, removed on the server", base: ["a", "b", "c"], mine: ["a", "B", "c"],
                 theirs: ["a", "c"], merged: ["a", "B", "c"],
                 conflicts: [ListCase.element(2, base: "b", mine: "B", theirs: nil)]),
        ListCase(name: "removed here, changed on the server: named where the server's would go",
                 base: ["a", "b", "c"], mine: ["a", "c"], theirs: ["a", "B", "c"], merged: ["a", "c"],
                 conflicts: [ListCase.element(2, base: "b", mine: nil, theirs: "B")]),
        ListCase(name: "neighbouring elements changed one on each side", base: ["a", "b", "c", "d"],
                 mine: ["a", "B", "c", "d"], theirs: ["a", "b", "C", "d"], merged: ["a", "B", "C", "d"]),
        ListCase(name: "removed here, the server inserted right after it", base: ["a", "b", "c"], mine: ["a", "c"],
                 theirs: ["a", "b", "x", "c"], merged: ["a", "x", "c"]),
        ListCase(name: "a run removed here, the server inserted inside it", base: ["a", "b", "c", "d"],
                 mine: ["a", "d"], theirs: ["a", "b", "x", "c", "d"], merged: ["a", "x", "d"]),
        ListCase(name: "a run replaced alike in length on both sides pairs up element by element",
                 base: ["a", "b", "c", "d"], mine: ["a", "M1", "M2", "d"], theirs: ["a", "T1", "T2", "d"],
                 merged: ["a", "M1", "M2", "d"],
                 conflicts: [ListCase.element(2, base: "b", mine: "M1", theirs: "T1"),
                             ListCase.element(3, base: "c", mine: "M2", theirs: "T2")]),
        ListCase(name: "a run replaced here by a shorter one, an element of it changed on the server",
                 base: ["a", "b", "c", "d"], mine: ["a", "X", "d"], theirs: ["a", "b", "C", "d"],
                 merged: ["a", "X", "d"],
                 conflicts: [ListCase.run(2, base: ["b", "c"], mine: ["X"], theirs: ["b", "C"])]),
        ListCase(name: "the server inserted inside a run replaced here", base: ["a", "b", "c", "d"],
                 mine: ["a", "X", "d"], theirs: ["a", "b", "y", "c", "d"], merged: ["a", "X", "d"],
                 conflicts: [ListCase.run(2, base: ["b", "c"], mine: ["X"], theirs: ["b", "y", "c"])]),
        ListCase(name: "a run replaced here, the server appended", base: ["a", "b", "c", "d"], mine: ["a", "X", "d"],
                 theirs: ["a", "b", "c", "d", "e"], merged: ["a", "X", "d", "e"]),
        ListCase(name: "changed here; changed and followed by a new element on the server: one run conflict",
                 base: ["a", "d"], mine: ["a", "D1"], theirs: ["a", "D2", "e"], merged: ["a", "D1"],
                 conflicts: [ListCase.run(2, base: ["d"], mine: ["D1"], theirs: ["D2", "e"])]),
        ListCase(name: "all removed here, one changed on the server", base: ["a", "b"], mine: [], theirs: ["a", "B"],
                 merged: [], conflicts: [ListCase.element(1, base: "b", mine: nil, theirs: "B")]),
        ListCase(name: "removed here, both changed on the server: one run conflict", base: ["a", "b", "c"],
                 mine: ["a"], theirs: ["a", "B", "C"], merged: ["a"],
                 conflicts: [ListCase.run(2, base: ["b", "c"], mine: [], theirs: ["B", "C"])]),
        ListCase(name: "both changed here, removed on the server: one run conflict", base: ["a", "b", "c"],
                 mine: ["a", "B", "C"], theirs: ["a"], merged: ["a", "B", "C"],
                 conflicts: [ListCase.run(2, base: ["b", "c"], mine: ["B", "C"], theirs: [])]),
        ListCase(name: "empty everywhere", base: [], mine: [], theirs: [], merged: []),
        ListCase(name: "cleared on both sides", base: ["a", "b"], mine: [], theirs: [], merged: []),
        ListCase(name: "salt added on each side at different places: both kept", base: ["salt", "flour"],
                 mine: ["salt", "flour", "salt"], theirs: ["salt", "salt", "flour"],
                 merged: ["salt", "salt", "flour", "salt"]),
        ListCase(name: "salt added on both sides at the same place: kept once", base: ["flour"],
                 mine: ["flour", "salt"], theirs: ["flour", "salt"], merged: ["flour", "salt"]),
        ListCase(name: "the second salt removed here, pepper appended on the server", base: ["salt", "flour", "salt"],
                 mine: ["salt", "flour"], theirs: ["salt", "flour", "salt", "pepper"], merged: ["salt", "flour", "pepper"]),
        ListCase(name: "salt changed differently on both sides of a duplicate", base: ["salt", "salt"],
                 mine: ["salt", "sea salt"], theirs: ["salt", "rock salt"], merged: ["salt", "sea salt"],
                 conflicts: [ListCase.element(2, base: "salt", mine: "sea salt", theirs: "rock salt")]),
    ]

    @Test("ingredients merge element by element", arguments: cases)
    func ingredients(_ row: ListCase) {
        let result = RecipeMerge.merge(
            base: RecipeFields(title: "t", ingredients: row.base), mine: RecipeFields(title: "t", ingredients: row.mine),
            theirs: RecipeFields(title: "t", ingredients: row.theirs))
        #expect(result.merged.ingredients == row.merged)
        #expect(result.conflicts == row.conflicts)
        #expect(result.merged.steps.isEmpty)
    }

    @Test("steps merge like ingredients and their conflicts are named step N", arguments: cases)
    func steps(_ row: ListCase) {
        let result = RecipeMerge.merge(
            base: RecipeFields(title: "t", steps: row.base.map { Step(text: $0) }),
            mine: RecipeFields(title: "t", steps: row.mine.map { Step(text: $0) }),
            theirs: RecipeFields(title: "t", steps: row.theirs.map { Step(text: $0) }))
        #expect(result.merged.steps.map(\.text) == row.merged)
        let expected = row.conflicts.map { conflict -> FieldConflict in
            var moved = conflict
            moved.field = .step(conflict.field.number ?? 0)
            return moved
        }
        #expect(result.conflicts == expected)
        #expect(result.merged.ingredients.isEmpty)
    }

    @Test("the diff keeps the longest common subsequence and reports the runs between")
    func diffEdits() {
        #expect(ListDiff.edits(from: ["a", "b", "c"], to: ["a", "x", "c"]) == [ListEdit(lo: 1, hi: 2, replacement: ["x"])])
        #expect(ListDiff.edits(from: ["a", "b"], to: ["a", "b", "c"]) == [ListEdit(lo: 2, hi: 2, replacement: ["c"])])
        #expect(ListDiff.edits(from: ["a", "b", "c"], to: []) == [ListEdit(lo: 0, hi: 3, replacement: [])])
        #expect(ListDiff.edits(from: ["x", "a", "y"], to: ["a"]) == [
            ListEdit(lo: 0, hi: 1, replacement: []), ListEdit(lo: 2, hi: 3, replacement: []),
        ])
        #expect(ListDiff.elementEdits(from: ["a", "b", "c", "d"], to: ["a", "B", "C", "d"]) == [
            ListEdit(lo: 1, hi: 2, replacement: ["B"]), ListEdit(lo: 2, hi: 3, replacement: ["C"]),
        ])
        #expect(ListDiff.elementEdits(from: ["a", "b", "c"], to: ["a"]) == [
            ListEdit(lo: 1, hi: 2, replacement: []), ListEdit(lo: 2, hi: 3, replacement: []),
        ])
        #expect(ListDiff.elementEdits(from: ["a", "b", "c"], to: ["a", "X"]) == [ListEdit(lo: 1, hi: 3, replacement: ["X"])])
        #expect(ListDiff.matchedPairs(["b", "a", "b"], ["a", "b", "a"]).count == 2)
    }

    @Test("concurrent inserts come out the server's first, or mine first when asked (to state the symmetry)")
    func concurrentInsertOrder() {
        #expect(ListMerge.merge(base: ["a"], mine: ["a", "m"], theirs: ["a", "t"]) == [.merged(["a", "t", "m"])])
        #expect(ListMerge.merge(base: ["a"], mine: ["a", "m"], theirs: ["a", "t"], concurrentInserts: .mineFirst)
            == [.merged(["a", "m", "t"])])
    }
}
