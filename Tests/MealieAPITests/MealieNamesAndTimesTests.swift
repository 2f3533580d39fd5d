import Foundation
@testable import MealieAPI
import RecipeModels
import Testing

@Suite("Mealie's names and times: a title Mealie has already, times as Mealie writes them")
struct MealieNamesAndTimesTests {
    /// Mealie's copy of a recipe named `name`, with `extras` as given (the captured recipe's other keys).
    static func copy(named name: String, extras: [String: String] = [:]) -> [String: MealieJSON] {
        var document = MealieMappingTests.captured
        document["name"] = .string(name)
        document["slug"] = .string(MealieMapping.slug(name))
        document["extras"] = .object(extras.mapValues(MealieJSON.string))
        return document
    }

    @Test("The title kept beside Mealie's name is read while the name is the one it stands for; after a rename in Mealie, the name", arguments: [
        ("no title kept: the name", "Collide (1)", [:], "Collide (1)"),
        ("the title kept for this name", "Collide (1)", ["recipes.title": "Collide", "recipes.title.name": "Collide (1)"], "Collide"),
        ("renamed in Mealie since: its new name", "Family collide", ["recipes.title": "Collide", "recipes.title.name": "Collide (1)"],
         "Family collide"),
        ("a title without the name it stands for: the name", "Collide (1)", ["recipes.title": "Collide"], "Collide (1)"),
    ] as [(String, String, [String: String], String)])
    func titleRead(_ what: String, name: String, extras: [String: String], title: String) {
        #expect(MealieMapping.fields(of: Self.copy(named: name, extras: extras)).title == title, "\(what)")
    }

    @Test("Created under another name (Mealie's \"Collide (1)\"): the write keeps that name and puts the title beside it, with the rest")
    func createdUnderAnotherName() throws {
        let current = Self.copy(named: "Collide (1)", extras: ["groupId": "g"])
        var fields = MealieMapping.fields(of: current)
        fields.title = "Collide"
        fields.ingredients = [] // Mealie's sample ingredient, which the cook never wrote
        let write = MealieMapping.write(fields, over: current, catalog: MealieMappingTests.catalog, newID: MealieMappingTests.ids(),
                                        nameInMealie: "Collide (1)")
        guard case .patch(let body) = write else { Issue.record("\(write)"); return }
        #expect(Set(body.keys) == ["extras", "recipeIngredient"]) // no rename: Mealie refuses "Collide"
        #expect(body["extras"] == .object(["groupId": .string("g"), "recipes.title": .string("Collide"),
                                           "recipes.title.name": .string("Collide (1)")]))
        let after = current.merging(body) { _, new in new }
        #expect(MealieMapping.fields(of: after) == fields)
        // Written again (a later sync, no name given): nothing to write, the name and the title beside it stay.
        #expect(MealieMapping.write(fields, over: after, catalog: MealieMappingTests.catalog, newID: MealieMappingTests.ids()) == .patch([:]))
    }

    @Test("A title taken in Mealie on a rename: the alternative name goes with the title beside it; renamed again, the title alone")
    func renameUnderAnotherName() throws {
        let current = Self.copy(named: "Soup", extras: ["groupId": "g"])
        var fields = MealieMapping.fields(of: current)
        fields.title = "Pancakes"
        let plain = MealieMapping.write(fields, over: current, catalog: MealieMappingTests.catalog, newID: MealieMappingTests.ids())
        #expect(plain == .patch(["name": .string("Pancakes"), "slug": .string("soup")]))
        let taken = MealieMapping.write(fields, over: current, catalog: MealieMappingTests.catalog, newID: MealieMappingTests.ids(),
                                        nameInMealie: MealieMapping.alternativeName("Pancakes", 2))
        guard case .patch(let body) = taken else { Issue.record("\(taken)"); return }
        #expect(body["name"] == .string("Pancakes (2)") && body["slug"] != nil)
        #expect(body["extras"]?["recipes.title"] == .string("Pancakes") && body["extras"]?["recipes.title.name"] == .string("Pancakes (2)"))
        var after = current.merging(body) { _, new in new }
        after["slug"] = .string("pancakes-2")
        #expect(MealieMapping.fields(of: after).title == "Pancakes")
        // Renamed here to a free title: Mealie's name is the title again, and the title kept beside it goes.
        fields.title = "Crêpes"
        guard case .patch(let renamed) = MealieMapping.write(fields, over: after, catalog: MealieMappingTests.catalog,
                                                             newID: MealieMappingTests.ids()) else { Issue.record("no patch"); return }
        #expect(renamed["name"] == .string("Crêpes"))
        #expect(renamed["extras"] == .object(["groupId": .string("g")]))
    }

    @Test("A recipe renamed in Mealie after its title was kept beside another name: written back, the stale title goes")
    func renamedInMealie() throws {
        let current = Self.copy(named: "Family collide", extras: ["recipes.title": "Collide", "recipes.title.name": "Collide (1)"])
        let fields = MealieMapping.fields(of: current)
        #expect(fields.title == "Family collide")
        let write = MealieMapping.write(fields, over: current, catalog: MealieMappingTests.catalog, newID: MealieMappingTests.ids())
        #expect(write == .patch(["extras": .object([:])]))
    }

    @Test("Mealie's refusal of a taken name is told from its other 400s")
    func nameTaken() throws {
        let taken = try Fixture.json(400, ["detail": ["message": "Recipe already exists", "error": true, "exception": NSNull()]])
        #expect(MealieAnswer.isNameTaken(taken))
        #expect(!MealieAnswer.isNameTaken(try Fixture.json(400, ["detail": ["message": "Permission Denied"]])))
        #expect(!MealieAnswer.isNameTaken(try Fixture.json(500, ["detail": ["message": "Recipe already exists"]])))
    }

    @Test("A time is written as Mealie writes it, and that form reads back as the time kept", arguments: [
        ("PT20M", "20 minutes"), ("PT1H30M", "1 hour 30 minutes"), ("PT1H", "1 hour"), ("PT1M", "1 minute"),
        ("P2DT4H48M", "2 days 4 hours 48 minutes"), ("PT90S", "1 minute 30 seconds"), ("PT0.5H", "30 minutes"),
        ("PT0M", "0 minutes"), ("", ""), ("about an hour", "about an hour"), ("90 mins", "90 mins"),
    ])
    func timeWritten(_ stored: String, _ inMealie: String) throws {
        #expect(MealieDuration.written(stored) == inMealie)
        let back = MealieDuration.stored(inMealie)
        #expect(MealieDuration.written(back) == inMealie) // read back and written again: the same text, no write
        if stored.uppercased().hasPrefix("P") {
            #expect(try RecipeDuration(parsing: back).seconds == RecipeDuration(parsing: stored).seconds)
        } else {
            #expect(back == stored) // not a time of Mealie's form: kept as written
        }
    }

    @Test("Times a family wrote in Mealie in another form are kept as written", arguments: [
        "90 minutes", "1h 30m", "1 Hour", "1 hour and 30 minutes", "30 min", "1 year",
    ])
    func timeOfAnotherForm(_ text: String) {
        #expect(MealieDuration.stored(text) == text)
        #expect(MealieDuration.written(text) == text)
    }

    @Test("A time edit writes Mealie's form over the family's; an unedited time read from Mealie writes nothing")
    func timeEdit() throws {
        var current = MealieMappingTests.captured
        current["prepTime"] = .string("30 minutes")
        current["performTime"] = .string("about an hour")
        var fields = MealieMapping.fields(of: current)
        #expect(fields.details.prepTime == "PT30M" && fields.details.cookTime == "about an hour")
        #expect(MealieMapping.write(fields, over: current, catalog: MealieMappingTests.catalog, newID: MealieMappingTests.ids()) == .patch([:]))
        fields.details.prepTime = "PT20M"
        #expect(MealieMapping.write(fields, over: current, catalog: MealieMappingTests.catalog, newID: MealieMappingTests.ids())
            == .patch(["prepTime": .string("20 minutes")]))
    }
}
