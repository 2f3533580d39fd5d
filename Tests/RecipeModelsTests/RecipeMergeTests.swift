import Foundation
import Testing
@testable import RecipeModels

/// Images for the tests: two different SHA-256s, each available as a local reference and as a server URL.
enum TestImages {
    static let shaA = String(repeating: "a1", count: 32)
    static let shaB = String(repeating: "b2", count: 32)
    static let localA = RecipeImage(ImageReference(
        sha256: shaA, format: .jpeg, byteCount: 1_234, localFileName: "\(shaA).jpg"))
    static let serverA = RecipeImage(serverURL: "http://127.0.0.1:8080/v1/images/\(shaA)")!
    static let localB = RecipeImage(ImageReference(sha256: shaB, format: .png, byteCount: 99, localFileName: nil))
    static let serverB = RecipeImage(serverURL: "http://127.0.0.1:8080/v1/images/\(shaB)")!
}

/// One row of the value-field table: base, mine and theirs fields and the merged fields and conflicts expected.
struct ValueCase: Sendable, CustomTestStringConvertible {
    var name: String
    var base: RecipeFields
    var mine: RecipeFields
    var theirs: RecipeFields
    var merged: RecipeFields
    var conflicts: [FieldConflict] = []

    var testDescription: String { name }
}

@Suite("Three-way merge of a recipe's value fields")
struct RecipeMergeTests {
    static let base = RecipeFields(
        title: "Soup", description: "hot", recipeYield: "2", keywords: "winter", image: TestImages.localA)

    static func with(_ change: (inout RecipeFields) -> Void) -> RecipeFields {
        var fields = base
        change(&fields)
        return fields
    }

    static let cases: [ValueCase] = [
        ValueCase(name: "title changed here only", base: base, mine: with { $0.title = "Stew" }, theirs: base,
                  merged: with { $0.title = "Stew" }),
        ValueCase(name: "title changed on the server only", base: base, mine: base, theirs: with { $0.title = "Broth" },
                  merged: with { $0.title = "Broth" }),
        ValueCase(name: "the same title on both sides", base: base, mine: with { $0.title = "Stew" },
                  theirs: with { $0.title = "Stew" }, merged: with { $0.title = "Stew" }),
        ValueCase(name: "titles changed differently: a conflict, mine kept", base: base,
                  mine: with { $0.title = "Stew" }, theirs: with { $0.title = "Broth" },
                  merged: with { $0.title = "Stew" },
                  conflicts: [FieldConflict(field: .title, base: .text("Soup"), mine: .text("Stew"), theirs: .text("Broth"))]),
        ValueCase(name: "different fields changed on each side both survive", base: base,
                  mine: with { $0.description = "very hot" }, theirs: with { $0.keywords = "winter, quick" },
                  merged: with { $0.description = "very hot"; $0.keywords = "winter, quick" }),
        ValueCase(name: "description, yield and keywords conflict by name", base: base,
                  mine: with { $0.description = "d1"; $0.recipeYield = "4"; $0.keywords = "k1" },
                  theirs: with { $0.description = "d2"; $0.recipeYield = "6"; $0.keywords = "k2" },
                  merged: with { $0.description = "d1"; $0.recipeYield = "4"; $0.keywords = "k1" },
                  conflicts: [
                    FieldConflict(field: .description, base: .text("hot"), mine: .text("d1"), theirs: .text("d2")),
                    FieldConflict(field: .recipeYield, base: .text("2"), mine: .text("4"), theirs: .text("6")),
                    FieldConflict(field: .keywords, base: .text("winter"), mine: .text("k1"), theirs: .text("k2")),
                  ]),
        ValueCase(name: "cleared here, untouched on the server", base: base, mine: with { $0.description = "" },
                  theirs: base, merged: with { $0.description = "" }),
        ValueCase(name: "image changed on the server only: the server's image", base: base, mine: base,
                  theirs: with { $0.image = TestImages.serverB }, merged: with { $0.image = TestImages.serverB }),
        ValueCase(name: "the server's URL of the base image is no change", base: base, mine: with { $0.title = "Stew" },
                  theirs: with { $0.image = TestImages.serverA }, merged: with { $0.title = "Stew" }),
        ValueCase(name: "image removed here, untouched on the server", base: base, mine: with { $0.image = nil },
                  theirs: base, merged: with { $0.image = nil }),
        ValueCase(name: "the same new image on both sides: mine (the local copy) is kept", base: base,
                  mine: with { $0.image = TestImages.localB }, theirs: with { $0.image = TestImages.serverB },
                  merged: with { $0.image = TestImages.localB }),
        ValueCase(name: "image removed here, replaced on the server: a conflict", base: base,
                  mine: with { $0.image = nil }, theirs: with { $0.image = TestImages.serverB },
                  merged: with { $0.image = nil },
                  conflicts: [FieldConflict(field: .image, base: .image(TestImages.localA), mine: .absent,
                                            theirs: .image(TestImages.serverB))]),
        ValueCase(name: "an image added on both sides, different ones: a conflict",
                  base: with { $0.image = nil }, mine: with { $0.image = TestImages.localA },
                  theirs: with { $0.image = TestImages.serverB }, merged: with { $0.image = TestImages.localA },
                  conflicts: [FieldConflict(field: .image, base: .absent, mine: .image(TestImages.localA),
                                            theirs: .image(TestImages.serverB))]),
    ]

    @Test("value fields merge as values", arguments: cases)
    func values(_ row: ValueCase) {
        let result = RecipeMerge.merge(base: row.base, mine: row.mine, theirs: row.theirs)
        #expect(result.merged == row.merged)
        #expect(result.merged.image?.source == row.merged.image?.source)
        #expect(result.conflicts == row.conflicts)
        #expect(result.hasConflicts == !row.conflicts.isEmpty)
    }

    @Test("conflicts come in recipe order: values, then ingredients, then steps")
    func conflictOrder() {
        let base = RecipeFields(title: "a", ingredients: ["i"], steps: ["s"])
        let mine = RecipeFields(title: "b", ingredients: ["i1"], steps: ["s1"], image: TestImages.localA)
        let theirs = RecipeFields(title: "c", ingredients: ["i2"], steps: ["s2"], image: TestImages.serverB)
        let names = RecipeMerge.merge(base: base, mine: mine, theirs: theirs).conflicts.map(\.field.name)
        #expect(names == ["title", "image", "ingredient 1", "step 1"])
        #expect(RecipeConflict.fields(RecipeMerge.merge(base: base, mine: mine, theirs: theirs).conflicts).summary
            == "changed here and on the server: title, image, ingredient 1, step 1")
    }

    @Test("a server image is known by the SHA-256 its URL ends in; anything else is refused")
    func serverImages() {
        let upper = RecipeImage(serverURL: "https://example.test/v1/images/\(TestImages.shaA.uppercased())?x=1")
        #expect(upper?.sha256 == TestImages.shaA)
        #expect(upper == TestImages.localA)
        #expect(upper?.serverURL == "https://example.test/v1/images/\(TestImages.shaA.uppercased())?x=1")
        #expect(upper?.localReference == nil)
        #expect(TestImages.localA.localReference?.byteCount == 1_234)
        #expect(RecipeImage(serverURL: "https://example.test/v1/images/") == nil)
        #expect(RecipeImage(serverURL: "https://example.test/v1/images/\(TestImages.shaA)/") == nil)
        #expect(RecipeImage(serverURL: "https://example.test/v1/images/" + String(repeating: "g", count: 64)) == nil)
        #expect(RecipeImage(serverURL: "https://example.test/v1/images/" + String(repeating: "a", count: 63)) == nil)
        #expect(Set([TestImages.localA, TestImages.serverA, TestImages.serverB]).count == 2)
    }

    @Test("fields are taken from a recipe and applied to one, a server image through its downloaded copy")
    func recipeRoundTrip() throws {
        let reference = ImageReference(sha256: TestImages.shaA, format: .jpeg, byteCount: 1_234, localFileName: "a.jpg")
        let recipe = Recipe(
            id: 4, uuid: UUID(), title: "Soup", description: "hot", recipeYield: "2", keywords: "winter",
            ingredients: [Ingredient(text: "salt")], steps: [Step(text: "boil")], image: reference,
            sync: SyncInfo(state: .pending, revision: 3), dateModified: Date(timeIntervalSince1970: 1_000))
        let fields = RecipeFields(recipe)
        #expect(fields == RecipeFields(
            title: "Soup", description: "hot", recipeYield: "2", keywords: "winter", ingredients: ["salt"],
            steps: ["boil"], image: TestImages.localA))
        #expect(fields.image?.localReference == reference)
        let same = try recipe.applying(fields) { _, _ in throw TestFailure() }
        #expect(same == recipe)

        var theirs = fields
        theirs.title = "Broth"
        theirs.steps = ["boil", "serve"]
        theirs.image = TestImages.serverB
        let downloaded = ImageReference(sha256: TestImages.shaB, format: .png, byteCount: 99, localFileName: nil)
        var asked: [String] = []
        let applied = recipe.applying(theirs) { sha256, url in
            asked = [sha256, url]
            return downloaded
        }
        #expect(asked == [TestImages.shaB, "http://127.0.0.1:8080/v1/images/\(TestImages.shaB)"])
        #expect(applied.title == "Broth" && applied.steps == [Step(text: "boil"), Step(text: "serve")])
        #expect(applied.image == downloaded)
        #expect(applied.id == recipe.id && applied.uuid == recipe.uuid && applied.sync == recipe.sync)
        #expect(applied.dateModified == recipe.dateModified)

        var unchanged = recipe
        #expect(throws: TestFailure.self) { try unchanged.apply(theirs) { _, _ in throw TestFailure() } }
        #expect(unchanged == recipe)
    }
}

/// An error a test closure throws to prove that a throw is passed on and changes nothing.
struct TestFailure: Error {}
