import Foundation
import Testing
@testable import RecipeModels

@Suite("Resolving, wording and settling merge conflicts")
struct ConflictResolutionTests {
    /// Title, ingredient 2 (removed on the server), ingredient 4 (changed on both) and step 1 in conflict; the server
    /// also appended "f".
    static let result = RecipeMerge.merge(
        base: RecipeFields(title: "Soup", ingredients: ["a", "b", "c", "d", "e"], steps: ["boil"]),
        mine: RecipeFields(title: "Stew", ingredients: ["a", "B1", "c", "D1", "e"], steps: ["simmer"]),
        theirs: RecipeFields(title: "Broth", ingredients: ["a", "c", "D2", "e", "f"], steps: ["roast"]))

    @Test("the merge names the conflicts where mine stands in the draft")
    func fixture() {
        #expect(Self.result.merged == RecipeFields(title: "Stew", ingredients: ["a", "B1", "c", "D1", "e", "f"], steps: ["simmer"]))
        #expect(Self.result.conflicts.map(\.field.name) == ["title", "ingredient 2", "ingredient 4", "step 1"])
    }

    @Test("resolving everything to mine keeps the draft; to theirs (no field named) takes every server value")
    func resolveAll() throws {
        let mine = try Self.result.resolving(to: .mine)
        #expect(mine == MergeResult(merged: Self.result.merged, conflicts: []))
        let theirs = try Self.result.resolving(to: .theirs)
        #expect(theirs == MergeResult(
            merged: RecipeFields(title: "Broth", ingredients: ["a", "c", "D2", "e", "f"], steps: ["roast"]), conflicts: []))
        let emptySelection = try Self.result.resolving(to: .theirs, only: [])
        #expect(emptySelection == theirs)
    }

    @Test("resolving one place to theirs renumbers the conflicts after it")
    func resolveOnePlace() throws {
        let step = try Self.result.resolving(to: .theirs, only: [ConflictSelector(name: "ingredient 2")])
        #expect(step.merged.ingredients == ["a", "c", "D1", "e", "f"])
        #expect(step.conflicts.map(\.field.name) == ["title", "ingredient 3", "step 1"])
        try #require(step.conflicts.count > 1)
        #expect(step.conflicts[1].mine == .text("D1") && step.conflicts[1].theirs == .text("D2"))
        let next = try step.resolving(to: .theirs, only: [ConflictSelector(name: "ingredient 3")])
        #expect(next.merged.ingredients == ["a", "c", "D2", "e", "f"])
        #expect(next.conflicts.map(\.field.name) == ["title", "step 1"])
    }

    @Test("a list name picks all its places; several names pick several fields")
    func selectors() throws {
        let ingredients = try Self.result.resolving(to: .theirs, only: [ConflictSelector(name: "ingredients")])
        #expect(ingredients.merged.ingredients == ["a", "c", "D2", "e", "f"] && ingredients.merged.title == "Stew")
        #expect(ingredients.conflicts.map(\.field.name) == ["title", "step 1"])
        let two = try Self.result.resolving(
            to: .mine, only: [ConflictSelector(name: "title"), ConflictSelector(name: "steps")])
        #expect(two.merged == Self.result.merged)
        #expect(two.conflicts.map(\.field.name) == ["ingredient 2", "ingredient 4"])
    }

    @Test("field names are parsed as a person types them, and anything else is refused with the names to use")
    func selectorNames() throws {
        #expect(try ConflictSelector(name: "yield") == .field(.recipeYield))
        #expect(try ConflictSelector(name: " ingredient 12 ") == .field(.ingredient(12)))
        #expect(try ConflictSelector(name: "step 2") == .field(.step(2)))
        #expect(try ConflictSelector(name: "steps") == .list(.steps))
        for bad in ["colour", "ingredient", "ingredient 0", "ingredient -1", "ingredient 03", "step two", "Title", ""] {
            #expect(throws: ConflictError.unknownField(bad)) { try ConflictSelector(name: bad) }
        }
        #expect(ConflictError.unknownField("colour").errorDescription
            == "'colour' is not a field; name one of title, description, yield, keywords, preptime, cooktime, totaltime, "
            + "category, cuisine, author, url, tools, diets, image, ingredients, steps, ingredient N, step N, "
            + "nutrition, nutrition KEY, properties or property KEY")
        #expect(try ConflictSelector(name: "cooktime") == .field(.cookTime))
        #expect(try ConflictSelector(name: "category") == .field(.recipeCategory))
        #expect(try ConflictSelector(name: "nutrition calories") == .field(.nutrition("calories")))
        #expect(try ConflictSelector(name: "nutrition") == .nutrition)
        #expect(try ConflictSelector(name: "property aggregate Rating") == .field(.property("aggregate Rating")))
        #expect(try ConflictSelector(name: "properties") == .properties)
    }

    @Test("a field not in conflict is refused, naming the ones that are")
    func notInConflict() {
        #expect(throws: ConflictError.notInConflict(
            "ingredient 3", conflicting: ["title", "ingredient 2", "ingredient 4", "step 1"])
        ) {
            try Self.result.resolving(to: .theirs, only: [.field(.ingredient(3))])
        }
        #expect(throws: ConflictError.notInConflict("image", conflicting: ["title", "ingredient 2", "ingredient 4", "step 1"])) {
            try Self.result.resolving(to: .mine, only: [.field(.image)])
        }
        #expect(ConflictError.notInConflict("image", conflicting: ["title", "step 1"]).errorDescription
            == "image is not in conflict; the conflicting fields are: title, step 1")
        #expect(ConflictError.notInConflict("image", conflicting: []).errorDescription
            == "image is not in conflict; no field is")
    }

    @Test("a draft whose list no longer holds a conflict's value is refused rather than resolved wrongly")
    func draftDiffers() {
        var stale = Self.result
        stale.merged.ingredients.remove(at: 0)
        #expect(throws: ConflictError.draftDiffers("ingredient 2")) { try stale.resolving(to: .theirs) }
    }

    @Test("conflicts are worded for status: changed on both sides, deleted on either side")
    func wording() {
        let fields = RecipeConflict.fields(Self.result.conflicts)
        #expect(fields.summary == "changed here and on the server: title, ingredient 2, ingredient 4, step 1")
        #expect(fields.blocked(id: 4)
            == "changed here and on the server: title, ingredient 2, ingredient 4, step 1 — `recipes resolve 4 --mine` or `--theirs`")
        #expect(RecipeConflict.deletedOnServer.summary == "deleted on the server, changed here")
        #expect(RecipeConflict.deletedHere.summary == "deleted here, changed on the server")
        #expect(RecipeConflict.deletedHere.blocked(id: 12)
            == "deleted here, changed on the server — `recipes resolve 12 --mine` or `--theirs`")
    }

    @Test("a deletion conflict resolves whole, each side to its own action; field names are refused")
    func deletionResolution() throws {
        let draft = RecipeFields(title: "Soup")
        #expect(try RecipeConflict.deletedOnServer.resolve(draft: draft, to: .mine) == .recreateOnServer)
        #expect(try RecipeConflict.deletedOnServer.resolve(draft: draft, to: .theirs) == .removeHere)
        #expect(try RecipeConflict.deletedHere.resolve(draft: draft, to: .mine) == .deleteOnServer)
        #expect(try RecipeConflict.deletedHere.resolve(draft: draft, to: .theirs) == .restoreFromServer)
        #expect(try RecipeConflict.deletedHere.resolve(draft: draft, to: .theirs, only: []) == .restoreFromServer)
        #expect(throws: ConflictError.deletionIsWhole) {
            try RecipeConflict.deletedHere.resolve(draft: draft, to: .mine, only: [.field(.title)])
        }
        let partial = try RecipeConflict.fields(Self.result.conflicts)
            .resolve(draft: Self.result.merged, to: .theirs, only: [.field(.title)])
        #expect(partial == .fields(try Self.result.resolving(to: .theirs, only: [.field(.title)])))
    }

    @Test("setting a conflicting field settles it; other edits leave it")
    func editSettlesValues() {
        let conflict = RecipeConflict.fields(Self.result.conflicts)
        var edited = Self.result.merged
        edited.description = "new"
        #expect(conflict.remaining(afterEditFrom: Self.result.merged, to: edited) == conflict)
        edited.title = "Ragout"
        #expect(conflict.remaining(afterEditFrom: Self.result.merged, to: edited)
            == .fields(Array(Self.result.conflicts.dropFirst())))
        #expect(RecipeConflict.deletedOnServer.remaining(afterEditFrom: Self.result.merged, to: edited) == .deletedOnServer)
    }

    @Test("list edits renumber the conflicts they do not touch and settle the ones they do")
    func editFollowsLists() throws {
        let conflict = RecipeConflict.fields(Self.result.conflicts)
        let old = Self.result.merged
        func after(_ ingredients: [String]) -> [String]? {
            var new = old
            new.ingredients = ingredients
            guard case .fields(let left)? = conflict.remaining(afterEditFrom: old, to: new) else { return nil }
            return left.map(\.field.name)
        }
        // old ingredients: a, B1 (ingredient 2), c, D1 (ingredient 4), e, f
        #expect(after(["B1", "c", "D1", "e", "f"]) == ["title", "ingredient 1", "ingredient 3", "step 1"])
        #expect(after(["z", "a", "B1", "c", "D1", "e", "f"]) == ["title", "ingredient 3", "ingredient 5", "step 1"])
        #expect(after(["a", "B2", "c", "D1", "e", "f"]) == ["title", "ingredient 4", "step 1"])
        #expect(after(["a", "B1", "c", "D1", "e"]) == ["title", "ingredient 2", "ingredient 4", "step 1"])
        #expect(after(["a", "c", "e"]) == ["title", "step 1"])

        // A conflict whose mine is removed is a place between two elements: inserting there settles it.
        let removedHere = RecipeMerge.merge(
            base: RecipeFields(title: "t", ingredients: ["a", "b", "c"]),
            mine: RecipeFields(title: "t", ingredients: ["a", "c"]),
            theirs: RecipeFields(title: "t", ingredients: ["a", "B", "c"]))
        let gap = RecipeConflict.fields(removedHere.conflicts)
        var inserted = removedHere.merged
        inserted.ingredients = ["a", "b2", "c"]
        #expect(gap.remaining(afterEditFrom: removedHere.merged, to: inserted) == nil)
        var elsewhere = removedHere.merged
        elsewhere.ingredients = ["c"]
        #expect(gap.remaining(afterEditFrom: removedHere.merged, to: elsewhere)
            == .fields([ListCase.element(1, base: "b", mine: nil, theirs: "B")]))
        elsewhere.ingredients = ["a", "c", "d"]
        #expect(gap.remaining(afterEditFrom: removedHere.merged, to: elsewhere) == gap)
    }

    @Test("two places an edit brings together are joined into one, as a merge would have")
    func editJoinsPlaces() throws {
        let result = RecipeMerge.merge(
            base: RecipeFields(title: "t", ingredients: ["a", "b", "x", "c"]),
            mine: RecipeFields(title: "t", ingredients: ["a", "x", "C1"]),
            theirs: RecipeFields(title: "t", ingredients: ["a", "B", "x", "C2"]))
        #expect(result.conflicts.map(\.field.name) == ["ingredient 2", "ingredient 3"])
        var edited = result.merged
        edited.ingredients = ["a", "C1"]
        let left = RecipeConflict.fields(result.conflicts).remaining(afterEditFrom: result.merged, to: edited)
        #expect(left == .fields([ListCase.run(2, base: ["b", "c"], mine: ["C1"], theirs: ["B", "C2"])]))
        guard case .fields(let joined)? = left else { return }
        #expect(try MergeResult(merged: edited, conflicts: joined).resolving(to: .theirs).merged.ingredients
            == ["a", "B", "C2"])
    }
}
