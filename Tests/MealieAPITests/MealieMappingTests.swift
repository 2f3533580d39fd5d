import Foundation
import MealieAPI
import RecipeModels
import Testing

@Suite("MealieMapping: the whole recipe to Mealie's model and back, the write as only the fields that changed")
struct MealieMappingTests {
    /// The recipe a real Mealie 2.0 answered (`Fixtures/recipe.json`): two ingredients (the second with a section
    /// title), two steps in a section "Prep", a tag, a category, times, nutrition, a note and settings.
    /// Empty, with an issue recorded, when the fixture cannot be read: the tests then fail, not the test process.
    static let captured: [String: MealieJSON] = {
        do {
            let body = try Fixture.response("recipe").body
            guard let members = try JSONDecoder().decode(MealieJSON.self, from: body).members else {
                Issue.record("Fixtures/recipe.json is not a JSON object")
                return [:]
            }
            return members
        } catch {
            Issue.record(error, "Fixtures/recipe.json cannot be read")
            return [:]
        }
    }()

    static let soup = MealieOrganizer(id: UUID(uuidString: "41449328-88a1-463d-b3c1-ac4f10a02931")!, name: "Soup", slug: "soup")
    static let vegan = MealieOrganizer(id: UUID(uuidString: "0b0b8b52-0000-4000-8000-000000000001")!, name: "Vegan", slug: "vegan")
    static let pot = MealieOrganizer(id: UUID(uuidString: "0b0b8b52-0000-4000-8000-000000000002")!, name: "Pot", slug: "pot", onHand: false)
    static let catalog: [OrganizerKind: [MealieOrganizer]] = [.tags: [soup, vegan], .categories: [], .tools: [pot]]

    /// Ids made for new elements, the same in every run.
    static func ids() -> () -> UUID {
        var next = 0
        return {
            next += 1
            return UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", next))!
        }
    }

    @Test("Mealie's recipe read as the whole schema.org recipe: each field from its Mealie key")
    func fieldsOfCaptured() {
        let fields = MealieMapping.fields(of: Self.captured)
        #expect(fields.title == "Captured soup")
        #expect(fields.description == "Red and warm.")
        #expect(fields.recipeYield == "4 servings")
        #expect(fields.keywords == "Soup")
        #expect(fields.ingredients == ["1 kg tomatoes", "1 onion"])
        #expect(fields.steps == [Step(text: "Chop.", section: "Prep"), Step(text: "Cook 20 min.", section: "Prep")])
        #expect(fields.details == RecipeDetails(
            prepTime: "PT15M", cookTime: "PT30M", totalTime: "PT45M", recipeCategory: ["Dinner"], // Mealie's "15 minutes" …
            url: "https://example.org/soup", nutrition: ["calories": "250"]))
        #expect(fields.received.other.isEmpty && fields.image == nil)
    }

    /// One row: an edit of the fields as read, the top-level keys its write must send (no others), and whether
    /// the recipe read back after it gives exactly the edited fields.
    struct EditRow: Sendable, CustomTestStringConvertible {
        var name: String
        var edit: @Sendable (inout RecipeFields) -> Void
        var keys: Set<String>
        var testDescription: String { name }
    }

    static let editRows: [EditRow] = [
        EditRow(name: "nothing edited: no write at all", edit: { _ in }, keys: []),
        EditRow(name: "title: name with slug beside it (a rename without slug wedges the recipe)",
                edit: { $0.title = "Tomato soup" }, keys: ["name", "slug"]),
        EditRow(name: "description", edit: { $0.description = "Smooth." }, keys: ["description"]),
        EditRow(name: "yield", edit: { $0.recipeYield = "6 servings" }, keys: ["recipeYield"]),
        EditRow(name: "prep time", edit: { $0.details.prepTime = "PT20M" }, keys: ["prepTime"]),
        EditRow(name: "cook time goes to performTime, the web app's cook time", edit: { $0.details.cookTime = "PT1H" },
                keys: ["performTime"]),
        EditRow(name: "total time removed", edit: { $0.details.totalTime = "" }, keys: ["totalTime"]),
        EditRow(name: "source page (schema.org url) goes to orgURL", edit: { $0.details.url = "https://example.com/x" },
                keys: ["orgURL"]),
        EditRow(name: "a tag the group has added (and the order of the two, which Mealie does not keep, in extras)",
                edit: { $0.keywords = "Soup,Vegan" }, keys: ["tags", "extras"]),
        EditRow(name: "a tag removed", edit: { $0.keywords = "" }, keys: ["tags"]),
        EditRow(name: "a category removed", edit: { $0.details.recipeCategory = [] }, keys: ["recipeCategory"]),
        EditRow(name: "a tool the group has", edit: { $0.details.tool = ["Pot"] }, keys: ["tools"]),
        EditRow(name: "nutrition changed and added", edit: { $0.details.nutrition = ["calories": "260", "fatContent": "3 g"] },
                keys: ["nutrition"]),
        EditRow(name: "servingSize, which Mealie has no field for, in extras",
                edit: { $0.details.nutrition["servingSize"] = "1 bowl" }, keys: ["extras"]),
        EditRow(name: "cuisine, author, diets in extras",
                edit: { $0.details.recipeCuisine = ["Italian"]; $0.details.author = "Ada"; $0.details.suitableForDiet = ["https://schema.org/VeganDiet"] },
                keys: ["extras"]),
        EditRow(name: "another schema.org property kept verbatim in extras",
                edit: { $0.received.other["video"] = #"{"@type":"VideoObject","name":"How"}"# }, keys: ["extras"]),
        EditRow(name: "an ingredient edited", edit: { if $0.ingredients.count > 1 { $0.ingredients[1] = "2 onions" } }, keys: ["recipeIngredient"]),
        EditRow(name: "ingredients reordered and one added",
                edit: { $0.ingredients = ["1 onion", "1 kg tomatoes", "salt"] }, keys: ["recipeIngredient"]),
        EditRow(name: "ingredients emptied", edit: { $0.ingredients = [] }, keys: ["recipeIngredient"]),
        EditRow(name: "a step edited", edit: { if $0.steps.count > 1 { $0.steps[1].text = "Cook 25 min." } }, keys: ["recipeInstructions"]),
        EditRow(name: "steps in two sections",
                edit: { $0.steps = [Step(text: "Chop.", section: "Prep"), Step(text: "Simmer.", section: "Cook"), Step(text: "Serve.", section: "Cook")] },
                keys: ["recipeInstructions"]),
        EditRow(name: "steps without sections", edit: { $0.steps = ["Chop.", "Cook 20 min."] }, keys: ["recipeInstructions"]),
        EditRow(name: "everything at once",
                edit: {
                    $0.title = "All"; $0.description = "d"; $0.keywords = "Vegan"; $0.details.tool = ["Pot"]
                    $0.details.author = "Ada"; $0.ingredients.append("salt"); $0.steps.append(Step(text: "Eat.", section: "Prep"))
                },
                keys: ["name", "slug", "description", "tags", "tools", "extras", "recipeIngredient", "recipeInstructions"]),
    ]

    @Test("An edit writes only its own keys, and Mealie's copy after it reads back as exactly the edited fields", arguments: editRows)
    func editRoundTrip(_ row: EditRow) throws {
        var edited = MealieMapping.fields(of: Self.captured)
        row.edit(&edited)
        let write = MealieMapping.write(edited, over: Self.captured, catalog: Self.catalog, newID: Self.ids())
        guard case .patch(let body) = write else { Issue.record("\(write)"); return }
        #expect(Set(body.keys) == row.keys)
        let after = Self.captured.merging(body) { _, new in new }
        #expect(MealieMapping.fields(of: after) == edited)
        // Written again over the result, nothing is left to write: the round trip is exact.
        #expect(MealieMapping.write(edited, over: after, catalog: Self.catalog, newID: Self.ids()) == .patch([:]))
    }

    @Test("What recipes does not model is never written: ratings, notes, settings, assets, comments, Mealie's own extras")
    func unmodeledNeverWritten() throws {
        var document = Self.captured
        document["extras"] = .object(["mine": .string("kept"), "group_id": .string("g")])
        var edited = MealieMapping.fields(of: document)
        edited.details.author = "Ada"
        edited.title = "Renamed"
        edited.ingredients.append("salt")
        guard case .patch(let body) = MealieMapping.write(edited, over: document, catalog: Self.catalog, newID: Self.ids()) else {
            Issue.record("no patch"); return
        }
        for key in ["rating", "notes", "settings", "assets", "comments", "id", "userId", "groupId", "householdId", "updatedAt", "image"] {
            #expect(body[key] == nil, "\(key) written")
        }
        #expect(body["extras"] == .object(["mine": .string("kept"), "group_id": .string("g"), "recipes.author": .string("Ada")]))
        // The ingredients Mealie had are sent back whole (their referenceId, quantity, section title); the new one has
        // a fresh referenceId.
        let sent = body["recipeIngredient"]?.elements ?? []
        #expect(Array(sent.prefix(2)) == Self.captured["recipeIngredient"]?.elements)
        #expect(sent.last?["referenceId"] == .string("00000000-0000-4000-8000-000000000001"))
        #expect(sent.last?["note"] == .string("salt"))
    }

    @Test("Every ingredient written carries a referenceId and every step an id, summary and ingredientReferences")
    func elementsWhole() throws {
        var document = Self.captured
        document["recipeIngredient"] = .array([.object(["note": .string("1 kg tomatoes")])])
        document["recipeInstructions"] = .array([.object(["text": .string("Chop.")])])
        var edited = MealieMapping.fields(of: document)
        edited.ingredients.append("salt")
        edited.steps.append("Cook.")
        guard case .patch(let body) = MealieMapping.write(edited, over: document, catalog: Self.catalog, newID: Self.ids()) else {
            Issue.record("no patch"); return
        }
        for ingredient in body["recipeIngredient"]?.elements ?? [] {
            let referenceID = ingredient["referenceId"]?.string ?? ""
            #expect(referenceID.count == 36)
        }
        for step in body["recipeInstructions"]?.elements ?? [] {
            let id = step["id"]?.string ?? ""
            #expect(id.count == 36 && step["summary"] != nil && step["ingredientReferences"] == .array([]))
        }
        #expect(body["recipeIngredient"]?.elements.count == 2 && body["recipeInstructions"]?.elements.count == 2)
    }

    @Test("Tags, categories and tools the group lacks are asked for first; with the group's list, sent as Mealie lists them")
    func organizers() {
        var edited = MealieMapping.fields(of: Self.captured)
        edited.keywords = "Soup,Quick"
        edited.details.recipeCategory = ["Dinner", "Lunch"]
        edited.details.tool = ["pot"]
        #expect(MealieMapping.write(edited, over: Self.captured, catalog: Self.catalog, newID: Self.ids())
            == .createOrganizers([.tags: ["Quick"], .categories: ["Lunch"]]))
        let quick = MealieOrganizer(id: UUID(), name: "Quick", slug: "quick")
        let lunch = MealieOrganizer(id: UUID(), name: "Lunch", slug: "lunch")
        let catalog: [OrganizerKind: [MealieOrganizer]] = [.tags: [Self.soup, quick], .categories: [lunch], .tools: [Self.pot]]
        guard case .patch(let body) = MealieMapping.write(edited, over: Self.captured, catalog: catalog, newID: Self.ids()) else {
            Issue.record("no patch"); return
        }
        #expect(body["tags"]?.elements.first == Self.captured["tags"]?.elements.first) // the recipe's own object, as it came
        #expect(body["tags"]?.elements.last == .object(["id": .string(quick.id.uuidString.lowercased()), "name": .string("Quick"), "slug": .string("quick")]))
        #expect(body["tools"] == .array([.object(["id": .string(Self.pot.id.uuidString.lowercased()), "name": .string("Pot"),
                                                   "slug": .string("pot"), "onHand": .bool(false)])]))
        #expect(body["recipeCategory"]?.elements.count == 2)
    }

    @Test("Mealie lists tags in an order of its own: read back in the order written, and a tag added in Mealie follows")
    func organizerOrderKept() {
        var edited = MealieMapping.fields(of: Self.captured)
        edited.keywords = "Vegan,Soup"
        guard case .patch(let body) = MealieMapping.write(edited, over: Self.captured, catalog: Self.catalog, newID: Self.ids()) else {
            Issue.record("no patch"); return
        }
        var stored = Self.captured.merging(body) { _, new in new }
        stored["tags"] = .array((body["tags"]?.elements ?? []).reversed()) // as Mealie may list them
        #expect(MealieMapping.fields(of: stored).keywords == "Vegan,Soup")
        #expect(MealieMapping.write(edited, over: stored, catalog: Self.catalog, newID: Self.ids()) == .patch([:]))
        stored["tags"] = .array((stored["tags"]?.elements ?? []) + [.object(["id": .string(UUID().uuidString), "name": .string("Quick"), "slug": .string("quick")])])
        #expect(MealieMapping.fields(of: stored).keywords == "Vegan,Soup,Quick")
    }

    @Test("A keyword typed in another case than Mealie's tag is that tag: nothing to write, nothing listed")
    func keywordInAnotherCase() {
        var edited = MealieMapping.fields(of: Self.captured)
        edited.keywords = "soup"
        #expect(MealieMapping.write(edited, over: Self.captured, catalog: [:], newID: Self.ids()) == .patch([:]))
        edited.keywords = "soup,Vegan"
        guard case .patch(let body) = MealieMapping.write(edited, over: Self.captured, catalog: Self.catalog, newID: Self.ids()) else {
            Issue.record("no patch"); return
        }
        #expect(body["extras"]?["recipes.order.tags"] == .string(#"["Soup","Vegan"]"#)) // the names as Mealie has them
    }

    @Test("The one case Mealie cannot hold: a step outside any section after one inside reads back inside it (no end of a section)")
    func stepAfterSection() {
        var edited = MealieMapping.fields(of: Self.captured)
        edited.steps = [Step(text: "Chop.", section: "Prep"), Step(text: "Serve.")]
        guard case .patch(let body) = MealieMapping.write(edited, over: Self.captured, catalog: Self.catalog, newID: Self.ids()) else {
            Issue.record("no patch"); return
        }
        #expect(body["recipeInstructions"]?.elements.map { $0["title"] } == [.string("Prep"), .string("")])
        let after = Self.captured.merging(body) { _, new in new }
        #expect(MealieMapping.fields(of: after).steps == [Step(text: "Chop.", section: "Prep"), Step(text: "Serve.", section: "Prep")])
    }

    @Test("An ingredient Mealie parsed reads as what Mealie shows (display); an unparsed one as its note")
    func parsedIngredient() {
        var document = Self.captured
        document["recipeIngredient"] = .array([
            .object(["note": .string("sifted"), "display": .string("2 cups flour, sifted"), "disableAmount": .bool(false),
                     "referenceId": .string("af6ebb42-ce94-436a-bf8f-6385de832389")]),
            .object(["note": .string("1 egg"), "display": .string("1 egg"), "disableAmount": .bool(true)]),
        ])
        #expect(MealieMapping.fields(of: document).ingredients == ["2 cups flour, sifted", "1 egg"])
    }

    @Test("The import document carries what the zip import can, tags and categories by name and slug, no extras")
    func importDocument() throws {
        let fields = RecipeFields(
            title: "Lentil stew", description: "Warm.", recipeYield: "4", keywords: "Soup,Vegan", ingredients: ["lentils"],
            steps: [Step(text: "Boil.", section: "Cook")],
            details: RecipeDetails(prepTime: "PT10M", cookTime: "PT30M", recipeCategory: ["Dinner"], author: "Ada",
                                   url: "https://example.org/l", nutrition: ["calories": "300"], tool: ["Pot", "Wok"]))
        let id = UUID(uuidString: "6c287c71-7993-479e-8872-f4af1626f916")!
        let document = MealieMapping.importDocument(fields, id: id, tools: [Self.pot], newID: Self.ids())
        #expect(document["id"] == .string("6c287c71-7993-479e-8872-f4af1626f916"))
        #expect(document["performTime"] == .string("30 minutes") && document["orgURL"] == .string("https://example.org/l"))
        #expect(document["tags"] == .array([.object(["name": .string("Soup"), "slug": .string("soup")]),
                                            .object(["name": .string("Vegan"), "slug": .string("vegan")])]))
        #expect(document["recipe_category"]?.elements.count == 1 && document["recipeCategory"] == nil)
        #expect(document["tools"]?.elements.count == 1) // Wok is created by the write after the import
        #expect(document["extras"] == nil)
        #expect(document["recipeInstructions"]?.elements.first?["title"] == .string("Cook"))
        #expect(document["nutrition"]?["calories"] == .string("300"))
    }

    /// Mealie's ingredients: a note each, with a section heading where `headings` names one.
    static func ingredientList(_ notes: [String], headings: [String: String]) -> MealieJSON {
        .array(notes.enumerated().map { index, note in
            .object([
                "quantity": .number(1), "unit": .null, "food": .null, "note": .string(note), "isFood": .bool(false),
                "disableAmount": .bool(true), "display": .string(note), "title": headings[note].map { .string($0) } ?? .null,
                "originalText": .null, "referenceId": .string(String(format: "00000000-0000-4000-8000-1000000000%02d", index)),
            ])
        })
    }

    @Test("An ingredient that carried a section heading removed or edited: the heading goes to the one now in its place, within its section", arguments: [
        ("the first of a section removed: the next one starts it", ["onion", "salt", "pepper"],
         ["onion": "Base", "salt": "Sauce", "pepper": ""]),
        ("its text edited: the edited one keeps it", ["2 kg tomatoes", "onion", "salt", "pepper"],
         ["2 kg tomatoes": "Base", "onion": "", "salt": "Sauce", "pepper": ""]),
        ("the first of the second section removed", ["1 kg tomatoes", "onion", "pepper"],
         ["1 kg tomatoes": "Base", "onion": "", "pepper": "Sauce"]),
        ("one without a heading removed: nothing moves", ["1 kg tomatoes", "salt", "pepper"],
         ["1 kg tomatoes": "Base", "salt": "Sauce", "pepper": ""]),
        ("a whole section removed: its heading goes with it (the next section keeps its own)", ["salt", "pepper"],
         ["salt": "Sauce", "pepper": ""]),
        ("the last of a section removed with its heading: not given to another section", ["1 kg tomatoes", "onion"],
         ["1 kg tomatoes": "Base", "onion": ""]),
    ] as [(String, [String], [String: String])])
    func headingsMove(_ what: String, ingredients: [String], headings: [String: String]) {
        var document = Self.captured
        document["recipeIngredient"] = Self.ingredientList(
            ["1 kg tomatoes", "onion", "salt", "pepper"], headings: ["1 kg tomatoes": "Base", "salt": "Sauce"])
        var edited = MealieMapping.fields(of: document)
        edited.ingredients = ingredients
        guard case .patch(let body) = MealieMapping.write(edited, over: document, catalog: Self.catalog, newID: Self.ids()) else {
            Issue.record("no patch"); return
        }
        let sent = body["recipeIngredient"]?.elements ?? []
        #expect(sent.map { $0["note"]?.text ?? "" } == ingredients, "\(what)")
        #expect(Dictionary(uniqueKeysWithValues: sent.map { ($0["note"]?.text ?? "", $0["title"]?.text ?? "") }) == headings,
                "\(what)")
    }
}
