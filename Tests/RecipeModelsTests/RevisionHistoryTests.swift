import Foundation
import Testing
@testable import RecipeModels

@Suite("what changed between two revisions, and which revision undo brings back")
struct RevisionHistoryTests {
    struct ChangeRow: CustomTestStringConvertible, Sendable {
        var name: String
        var old: RecipeFields
        var new: RecipeFields
        var expected: [String]
        var testDescription: String { name }
    }

    static let soup = RecipeFields(
        title: "Soup", recipeYield: "2 bowls", ingredients: ["2 tomatoes", "1 onion", "salt"],
        steps: ["Chop.", "Boil.", "Serve."])

    static func soup(_ change: (inout RecipeFields) -> Void) -> RecipeFields {
        var fields = soup
        change(&fields)
        return fields
    }

    static let changeRows: [ChangeRow] = [
        ChangeRow(name: "nothing changed: no words", old: soup, new: soup, expected: []),
        ChangeRow(name: "a value: its name", old: soup, new: soup { $0.title = "Tomato soup" }, expected: ["title"]),
        ChangeRow(name: "values in recipe order", old: soup,
                  new: soup { $0.recipeYield = "4 bowls"; $0.title = "Big soup"; $0.details.prepTime = "PT10M" },
                  expected: ["title", "yield", "prep time"]),
        ChangeRow(name: "two ingredients added and one step changed", old: soup,
                  new: soup { $0.ingredients += ["pepper", "oil"]; $0.steps[2] = "Serve hot." },
                  expected: ["2 ingredients added", "step 3 changed"]),
        ChangeRow(name: "one ingredient added: singular", old: soup, new: soup { $0.ingredients.insert("garlic", at: 1) },
                  expected: ["1 ingredient added"]),
        ChangeRow(name: "an ingredient removed, by its place before", old: soup, new: soup { $0.ingredients.remove(at: 1) },
                  expected: ["ingredient 2 removed"]),
        ChangeRow(name: "two steps changed: listed", old: soup,
                  new: soup { $0.steps[0] = "Dice."; $0.steps[2] = "Eat." }, expected: ["steps 1 and 3 changed"]),
        ChangeRow(name: "only the order: reordered", old: soup, new: soup { $0.ingredients.swapAt(0, 2) },
                  expected: ["ingredients reordered"]),
        ChangeRow(name: "a step put in a section is a change of that step", old: soup,
                  new: soup { $0.steps[1] = Step(text: "Boil.", section: "Soup") }, expected: ["step 2 changed"]),
        ChangeRow(name: "every ingredient replaced by more: changed and added", old: soup,
                  new: soup { $0.ingredients = ["a", "b", "c", "d"] }, expected: ["ingredients 1, 2 and 3 changed", "1 ingredient added"]),
        ChangeRow(name: "lists of details and nutrition by name", old: soup,
                  new: soup { $0.details.recipeCategory = ["Starter"]; $0.details.nutrition = ["calories": "90 kcal"] },
                  expected: ["category", "nutrition"]),
        ChangeRow(name: "an image set, then removed", old: soup,
                  new: soup { $0.image = RecipeImage(serverURL: "http://s/v1/images/" + String(repeating: "a", count: 64)) },
                  expected: ["image set"]),
        ChangeRow(name: "an image removed",
                  old: soup { $0.image = RecipeImage(serverURL: "http://s/v1/images/" + String(repeating: "b", count: 64)) },
                  new: soup, expected: ["image removed"]),
    ]

    @Test("the changes between two revisions are named by field and by place", arguments: changeRows)
    func changesBetween(row: ChangeRow) {
        #expect(RevisionChanges.between(row.old, row.new) == row.expected)
    }

    // MARK: Undo

    static func entry(
        _ seq: Int64, revision: Int64? = nil, _ origin: RevisionOrigin = .edit, title: String, deleted: Bool = false,
        restores: Int64? = nil
    ) -> RevisionEntry {
        RevisionEntry(
            seq: seq, recipeID: 8, uuid: "u", revision: revision ?? seq, at: Date(timeIntervalSince1970: 0), origin: origin,
            deleted: deleted, fields: RecipeFields(title: title), restores: restores)
    }

    struct UndoRow: CustomTestStringConvertible, Sendable {
        var name: String
        var entries: [RevisionEntry]
        var to: Int64?
        var expected: Result<Int64, UndoDecision.Refusal>
        var testDescription: String { name }
    }

    static let undoRows: [UndoRow] = [
        UndoRow(name: "no history: refused", entries: [], to: nil, expected: .failure(.noHistory)),
        UndoRow(name: "one revision only: nothing older", entries: [entry(1, .new, title: "A")], to: nil,
                expected: .failure(.nothingOlder(oldestKept: 1))),
        UndoRow(name: "back one revision", entries: [entry(1, .new, title: "A"), entry(2, title: "B"), entry(3, title: "C")],
                to: nil, expected: .success(2)),
        UndoRow(name: "an undo undone again goes one further back, not back to before the undo",
                entries: [entry(1, .new, title: "A"), entry(2, title: "B"), entry(3, title: "C"),
                          entry(4, .undo, title: "B", restores: 2)],
                to: nil, expected: .success(1)),
        UndoRow(name: "undone to the oldest: nothing older",
                entries: [entry(1, .new, title: "A"), entry(2, title: "B"), entry(3, .undo, title: "A", restores: 1)],
                to: nil, expected: .failure(.nothingOlder(oldestKept: 1))),
        UndoRow(name: "revisions with the same content (a pull that changed nothing here) are passed over",
                entries: [entry(1, .new, title: "A"), entry(2, .pull, title: "B"), entry(3, .pull, title: "B"), entry(4, title: "B")],
                to: nil, expected: .success(1)),
        UndoRow(name: "a deletion: the content it had comes back",
                entries: [entry(1, .new, title: "A"), entry(2, title: "B"), entry(3, .delete, title: "B", deleted: true)],
                to: nil, expected: .success(3)),
        UndoRow(name: "a deletion undone, then undo again: the revision before the last edit",
                entries: [entry(1, .new, title: "A"), entry(2, title: "B"), entry(3, .delete, title: "B", deleted: true),
                          entry(4, .undo, title: "B", restores: 3)],
                to: nil, expected: .success(1)),
        UndoRow(name: "--to a kept revision (a redo of an undo)",
                entries: [entry(1, .new, title: "A"), entry(2, title: "B"), entry(3, .undo, title: "A", restores: 1)],
                to: 2, expected: .success(2)),
        UndoRow(name: "--to a revision not kept: refused with what is kept",
                entries: [entry(5, title: "A"), entry(6, title: "B")], to: 2,
                expected: .failure(.unknownRevision(2, kept: 5...6))),
        UndoRow(name: "--to the deletion itself: refused",
                entries: [entry(1, .new, title: "A"), entry(2, .delete, title: "A", deleted: true)], to: 2,
                expected: .failure(.deletingRevision(2))),
        UndoRow(name: "--to what it holds already: refused",
                entries: [entry(1, .new, title: "A"), entry(2, title: "B")], to: 2, expected: .failure(.alreadyThere(2))),
    ]

    @Test("undo brings back the newest older content, walks further back when undone again, and --to any kept revision",
          arguments: undoRows)
    func undoTarget(row: UndoRow) {
        #expect(UndoDecision.target(in: row.entries, toRevision: row.to).map(\.seq) == row.expected)
    }

    @Test("where a revision came from reads as words, with the command of an edit and the revision an undo brought back")
    func sourceWords() {
        var edit = Self.entry(2, title: "B")
        edit.command = "ingredient add"
        #expect(edit.source(restoredRevision: nil) == "edited here (ingredient add)")
        #expect(Self.entry(3, .undo, title: "A").source(restoredRevision: 1) == "undo (back to revision 1)")
        #expect(Self.entry(4, .pull, title: "A").source(restoredRevision: nil) == "pulled from the server")
    }
}
