import Foundation
import MealieAPI
import MealieTestSupport
import Testing

/// Two recipes whose titles Mealie cannot both hold (`MealieMapping+Title`), and times as Mealie writes them, through
/// the debug binary against the real Mealie.
extension MealieSyncTests {
    @Test("Two cooks' \"Pancakes\" and a title that slugifies alike: each reaches Mealie under its own id, no sample ingredient, later edits arrive, the title stays as written")
    func titleMealieHasAlready() async throws {
        let session = try await MealieSession.shared()
        let title = Self.title("Pancakes")
        let laptop = try MealieHome(url: session.instance.url, token: session.instance.token)
        let mine = try Self.newRecipe(title, in: laptop, image: false)
        #expect(try laptop.run(["sync"]).status == 0)

        // The other cook's, with no ingredient and no step: Mealie would add its samples.
        let tablet = try MealieHome(url: session.instance.url, token: session.instance.token)
        #expect(try tablet.run(["new", title]).status == 0)
        #expect(try tablet.run(["description", "1", "Thin ones."]).status == 0)
        let theirs = try require(try tablet.show("1")["uuid"] as? String, "uuid")
        let first = try tablet.run(["sync"])
        #expect(first.status == 0, "\(first)")
        #expect(try tablet.state(theirs) == "synced")
        let created = try require(try await session.recipe(theirs), "the second Pancakes in Mealie")
        #expect(created["name"] as? String == "\(title) (1)")
        #expect((created["recipeIngredient"] as? [Any])?.isEmpty == true, "\(created["recipeIngredient"] ?? "")")
        #expect((created["recipeInstructions"] as? [Any])?.isEmpty == true, "\(created["recipeInstructions"] ?? "")")
        #expect(created["description"] as? String == "Thin ones.")
        #expect(try tablet.show("1")["title"] as? String == title)

        // Later edits arrive; `recipes sync <id>` too.
        #expect(try tablet.run(["yield", "1", "8 pancakes"]).status == 0)
        let edit = try tablet.run(["sync", "1"])
        #expect(edit.status == 0, "\(edit)")
        #expect(try await session.recipe(theirs)?["recipeYield"] as? String == "8 pancakes")
        #expect(try await session.recipe(mine)?["name"] as? String == title)

        // The laptop pulls the tablet's recipe under the cook's title, and its own keeps its name.
        let pull = try laptop.run(["sync"])
        #expect(pull.status == 0, "\(pull)")
        #expect(try laptop.row(theirs)?["title"] as? String == title)
        #expect(try laptop.row(mine)?["title"] as? String == title)

        // A title that slugifies like the others ("pancakes-…"), given by a rename here.
        let alike = title.lowercased() + "!"
        #expect(try tablet.run(["title", "1", alike]).status == 0)
        let rename = try tablet.run(["sync"])
        #expect(rename.status == 0, "\(rename)")
        #expect(try tablet.show("1")["title"] as? String == alike)
        let renamed = try require(try await session.recipe(theirs), "the renamed recipe")
        #expect(renamed["name"] as? String == "\(alike) (1)", "\(renamed["name"] ?? "")")
        #expect(try tablet.state(theirs) == "synced")
        #expect(laptop.leftovers().isEmpty && tablet.leftovers().isEmpty)
    }

    @Test("A time edited here reaches Mealie as Mealie writes times (\"1 hour 30 minutes\"), and syncing again writes nothing")
    func timesAsMealieWritesThem() async throws {
        let session = try await MealieSession.shared()
        let home = try MealieHome(url: session.instance.url, token: session.instance.token)
        let uuid = try Self.newRecipe(Self.title("Slow roast"), in: home, image: false)
        #expect(try home.run(["preptime", "1", "20m"]).status == 0)
        #expect(try home.run(["cooktime", "1", "1h 30m"]).status == 0)
        #expect(try home.run(["sync"]).status == 0)
        let sent = try require(try await session.recipe(uuid), "the recipe in Mealie")
        #expect(sent["prepTime"] as? String == "20 minutes" && sent["performTime"] as? String == "1 hour 30 minutes")

        // The family writes a time in its own words in Mealie; an edit here of another time leaves it so.
        try await session.patch(uuid, ["totalTime": "about two hours"])
        #expect(try home.run(["sync"]).status == 0)
        let updated = try require(try await session.recipe(uuid)?["updatedAt"] as? String, "updatedAt")
        #expect(try home.run(["sync"]).status == 0)
        #expect(try await session.recipe(uuid)?["updatedAt"] as? String == updated) // nothing written again
        #expect(try home.run(["preptime", "1", "25m"]).status == 0)
        #expect(try home.run(["sync"]).status == 0)
        let after = try require(try await session.recipe(uuid), "the recipe after the edit")
        #expect(after["prepTime"] as? String == "25 minutes" && after["totalTime"] as? String == "about two hours")
        #expect(after["performTime"] as? String == "1 hour 30 minutes")
        #expect(try home.show("1")["totalTime"] as? String == "about two hours")
    }

    @Test("A home of kind http (a recipes server) pointed at a Mealie: the run stops with \"set server.kind mealie\", exit 1, nothing sent")
    func httpKindAtAMealie() async throws {
        let session = try await MealieSession.shared()
        let home = try MealieHome(url: session.instance.url, token: session.instance.token)
        #expect(try home.run(["config", "set", "server.kind", "http"]).status == 0)
        let title = Self.title("Wrong kind")
        _ = try Self.newRecipe(title, in: home, image: false)
        let run = try home.run(["sync"])
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.contains("sync: stopped: server.url \(session.instance.url) is a Mealie"), "\(run)")
        #expect(run.stdout.contains("set `recipes config set server.kind mealie`"), "\(run)")
        #expect(try home.status().first?["state"] as? String == "pending")
        #expect(try await session.count(title) == 0)
        #expect(try home.run(["config", "set", "server.kind", "mealie"]).status == 0)
        #expect(try home.run(["sync"]).status == 0)
        #expect(try await session.count(title) == 1)
    }
}
