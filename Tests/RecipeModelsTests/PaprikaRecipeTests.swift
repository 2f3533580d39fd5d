import Foundation
import Testing
@testable import RecipeModels

@Suite("Reading one recipe of Paprika's export")
struct PaprikaRecipeTests {
    /// A recipe as Paprika 3 writes it in a `.paprikarecipe` (once unpacked), every key present.
    static var lasagne: [String: Any] { [
        "uid": "8E0C1F4A-2B7D-4C55-9E13-6A1F0B2C3D4E-1234-00000A1B2C3D4E5F",
        "name": "Lasagne al forno",
        "ingredients": "For the ragù:\n500 g beef mince\n1 onion, chopped\n\n400 g passata\n12 lasagne sheets\n",
        "directions": "Brown the mince with the onion.\n\nAdd the passata and simmer 1 hour.\n\nLayer with the sheets and bake 40 minutes at 180 °C.",
        "description": "The Sunday one.",
        "notes": "Freezes well.",
        "nutritional_info": "Calories: 520\nTotal Fat: 24 g\nSaturated fat: 9g\nProtein 31 g",
        "servings": "6",
        "prep_time": "20 mins",
        "cook_time": "1 hr 40 min",
        "total_time": "about 2 hours",
        "difficulty": "Medium",
        "rating": 5,
        "source": "Nonna Rosa",
        "source_url": "https://nonna.example.it/lasagne",
        "image_url": "https://nonna.example.it/lasagne.jpg",
        "photo": "4F2A.jpg",
        "photo_large": NSNull(),
        "photo_hash": "0B1C",
        "photo_data": "/9j/4AAQSkZJRgABAQ==",
        "photos": [] as [Any],
        "categories": ["Pasta", "Sunday"],
        "created": "2021-02-14 18:03:11",
        "hash": "5D41402ABC4B2A76B9719D911017C592",
        "scale": NSNull(),
        "on_favorites": 1,
        "in_trash": false,
    ] }

    static func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object)
    }

    @Test("every field Paprika writes lands in its place; its own are kept in one paprika property")
    func everyField() throws {
        let recipe = try PaprikaRecipe.recipe(inJSON: try Self.json(Self.lasagne))
        #expect(recipe.content == RecipeContent(
            title: "Lasagne al forno", description: "The Sunday one.\n\nNotes: Freezes well.", recipeYield: "6",
            ingredients: ["For the ragù:", "500 g beef mince", "1 onion, chopped", "400 g passata", "12 lasagne sheets"],
            steps: ["Brown the mince with the onion.", "Add the passata and simmer 1 hour.",
                    "Layer with the sheets and bake 40 minutes at 180 °C."],
            details: RecipeDetails(
                prepTime: "PT20M", cookTime: "PT1H40M", totalTime: "about 2 hours", recipeCategory: ["Pasta", "Sunday"],
                author: "Nonna Rosa", url: "https://nonna.example.it/lasagne",
                nutrition: ["calories": "520", "fatContent": "24 g", "saturatedFatContent": "9g", "proteinContent": "31 g"])))
        #expect(recipe.image == .embedded(Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01])))
        #expect(recipe.paprikaUID == "8E0C1F4A-2B7D-4C55-9E13-6A1F0B2C3D4E-1234-00000A1B2C3D4E5F")
        #expect(recipe.received.other.keys.sorted() == ["paprika"])
        let own = try #require(recipe.received.other["paprika"])
        #expect(own == #"{"created":"2021-02-14 18:03:11","difficulty":"Medium","hash":"5D41402ABC4B2A76B9719D911017C592","#
            + #""rating":5,"uid":"8E0C1F4A-2B7D-4C55-9E13-6A1F0B2C3D4E-1234-00000A1B2C3D4E5F"}"#)
    }

    @Test("empty and missing fields are left out; a unicode title is kept as written")
    func sparseRecipe() throws {
        let recipe = try PaprikaRecipe.recipe(inJSON: try Self.json([
            "uid": "A1", "name": "  Crème brûlée 🍮 ", "ingredients": "", "directions": "   ", "notes": "", "servings": "",
            "prep_time": "", "categories": [] as [Any], "rating": 0, "photo_data": NSNull(), "source_url": "",
            "nutritional_info": "",
        ]))
        #expect(recipe.content == RecipeContent(title: "Crème brûlée 🍮"))
        #expect(recipe.image == nil)
        #expect(recipe.received.other["paprika"] == #"{"uid":"A1"}"#)
    }

    @Test("the photo: photo_data, else the first of photos, else image_url")
    func photoChoice() throws {
        let photos: [Any] = [["filename": "a.jpg", "data": "R0lGODlhAQABAAAAACw="], ["filename": "b.jpg", "data": "/9j/"]]
        let fromPhotos = try PaprikaRecipe.recipe(inJSON: try Self.json(["name": "x", "photos": photos]))
        #expect(fromPhotos.image == .embedded(Data(base64Encoded: "R0lGODlhAQABAAAAACw=")!))
        let fromURL = try PaprikaRecipe.recipe(inJSON: try Self.json(["name": "x", "image_url": "https://img.example/x.jpg"]))
        #expect(fromURL.image == .remote(url: "https://img.example/x.jpg"))
        let notWeb = try PaprikaRecipe.recipe(inJSON: try Self.json(["name": "x", "image_url": "x.jpg"]))
        #expect(notWeb.image == nil, "a bare file name of Paprika's is no image here")
    }

    @Test("Paprika's times read as durations where they are times", arguments: [
        ("15 mins", "PT15M"), ("1 hr 20 min", "PT1H20M"), ("1 hour", "PT1H"), ("45 minutes", "PT45M"), ("2 hrs", "PT2H"),
        ("PT10M", "PT10M"), ("overnight", "overnight"), ("10-15 mins", "10-15 mins"),
    ])
    func times(_ written: String, _ kept: String) throws {
        let recipe = try PaprikaRecipe.recipe(inJSON: try Self.json(["name": "x", "cook_time": written]))
        #expect(recipe.content.details.cookTime == kept)
    }

    @Test("nutrition lines by schema.org's names; any line that is not one keeps the whole text", arguments: [
        ("Calories: 200\nSugar: 4 g\nFiber 2 g", ["calories": "200", "sugarContent": "4 g", "fiberContent": "2 g"], true),
        ("Total Carbohydrates: 30g\nCholesterol: 5mg\nSodium: 300 mg",
         ["carbohydrateContent": "30g", "cholesterolContent": "5mg", "sodiumContent": "300 mg"], true),
        ("Calories: 200\nPoints: 7", ["calories": "200"], false),
        ("About 300 calories a slice", [:], false),
    ])
    func nutrition(_ text: String, _ facts: [String: String], _ whole: Bool) {
        let read = PaprikaRecipe.nutrition(text)
        #expect(read.facts == facts)
        #expect(read.whole == whole)
    }

    @Test("what is not a Paprika recipe, a nameless one or a photo that is not base64 is refused with the reason")
    func refusals() throws {
        let cases: [(Data, String)] = [
            (Data("{\"name\":".utf8), "not a Paprika recipe (its JSON is malformed)"),
            (Data("[1, 2]".utf8), "not a Paprika recipe (its JSON is not an object)"),
            (try Self.json(["name": "", "ingredients": "1 egg"]), "it has no name (Paprika's \"name\")"),
            (try Self.json(["name": "x", "photo_data": "@@@@"]), "its photo (photo_data) is not base64"),
        ]
        for (data, message) in cases {
            do {
                _ = try PaprikaRecipe.recipe(inJSON: data)
                Issue.record("no error: \(message)")
            } catch {
                #expect(error.message.hasPrefix(message), "\(error.message)")
            }
        }
    }
}
