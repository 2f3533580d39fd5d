import Foundation
import GRDB
import RecipeModels
import RecipesTestSupport
import Testing
@testable import RecipeStore

@Suite("the store resolves titles beside ids and uuid starts; deleted recipes are not named")
struct TitleReferenceTests {
    /// "Lasagne al forno" (1), "Lasagne verde" (2), "Crème brûlée" (3, uuid beef…), "Beef stew" (4), "Tea" (5, uuid
    /// cafe…), "Soup" (6, deleted), "Soupe à l'oignon" (7), "2 minute noodles" (8).
    static func store(_ dir: TemporaryDirectory) throws -> RecipeStore {
        let store = try RecipeStore(home: dir.home)
        for title in ["Lasagne al forno", "Lasagne verde", "Crème brûlée", "Beef stew", "Tea", "Soup", "Soupe à l'oignon",
                      "2 minute noodles"] {
            _ = try store.create(title: title)
        }
        try store.pool.write { db in
            try db.execute(sql: "UPDATE recipes SET uuid = 'beef0000-0000-4000-8000-000000000003' WHERE id = 3")
            try db.execute(sql: "UPDATE recipes SET uuid = 'cafe0000-0000-4000-8000-000000000005' WHERE id = 5")
            try db.execute(sql: "UPDATE recipes SET deleted = 1, state = 'deleting' WHERE id = 6")
        }
        return store
    }

    @Test("each word names the recipe, or is refused with the message, the table says", arguments: [
        ("lasagne al", "1"),
        ("creme brulee", "3"),
        ("tea", "5"),                     // a title: "tea" holds no 4 hexadecimal digits
        ("cafe", "5"),                    // a uuid start (and no title starts so)
        ("Beef stew", "4"),               // more than a uuid start can be
        ("2", "2"),                       // an id, though "2 minute noodles" starts with 2
        ("2 minute", "8"),
        ("soup", "7"),                    // "Soup" is deleted: the start of the other
        ("lasagne", "\"lasagne\" names several recipes: 1 \"Lasagne al forno\", 2 \"Lasagne verde\"; name the one you mean by its id (the number before its title), or give more of its title"),
        ("beef", "\"beef\" starts the uuid of 3 \"Crème brûlée\" (beef0000-0000-4000-8000-000000000003) and the title of 4 \"Beef stew\"; name the one you mean by its id (the number before its title)"),
        ("pizza", "no recipe here is titled \"pizza\" or has a title starting so (case and accents aside); `list` shows the titles and ids (a recipe made on another device is here once a sync has pulled it)"),
        ("dead", "no recipe here has a uuid or a title starting with \"dead\"; `list` shows the titles and ids, `status` the uuids"),
    ])
    func resolve(word: String, expected: String) throws {
        let dir = TemporaryDirectory()
        let store = try Self.store(dir)
        let reference = try #require(RecipeReference(word))
        do {
            #expect(String(try store.recipeID(reference)) == expected, "\(word)")
        } catch {
            #expect(error.errorDescription == expected, "\(word)")
        }
    }
}
