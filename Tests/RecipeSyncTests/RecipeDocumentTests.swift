import Foundation
import RecipeModels
import RecipeSync
import Testing

@Suite("RecipeDocument is the contract's schema.org Recipe, byte for byte reproducible")
struct RecipeDocumentTests {
    static let modified = ISO8601DateFormatter().date(from: "2026-11-20T10:00:00Z")!
    static let uuid = UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!
    static let sha = String(repeating: "9f", count: 32)
    static let imageURL = "http://127.0.0.1:8080/v1/images/\(sha)"

    static func soup(image: Bool = true, sync: SyncInfo = SyncInfo(state: .pending, revision: 7)) -> Recipe {
        Recipe(
            id: 3, uuid: uuid, title: "Tomato soup", description: "Warm & red", recipeYield: "4 servings",
            keywords: "soup,vegan", ingredients: [Ingredient(text: "2 tomatoes"), Ingredient(text: "1 onion")],
            steps: [Step(text: "Chop."), Step(text: "Boil.")],
            image: image ? ImageReference(sha256: sha, format: .png, byteCount: 10, localFileName: "\(sha).png") : nil,
            sync: sync, dateModified: modified)
    }

    static func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("the document has exactly the contract's keys and values, version being the revision uploaded")
    func exactKeysAndValues() throws {
        let data = RecipeDocument.encode(Self.soup(), revision: 7, imageURL: Self.imageURL)
        let object = try Self.object(data)
        #expect(
            Set(object.keys) == [
                "@context", "@type", "identifier", "version", "name", "description", "recipeYield", "keywords",
                "recipeIngredient", "recipeInstructions", "image", "dateModified",
            ])
        #expect(object["@context"] as? String == "https://schema.org")
        #expect(object["@type"] as? String == "Recipe")
        #expect(object["identifier"] as? String == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(object["version"] as? Int == 7)
        #expect(object["name"] as? String == "Tomato soup")
        #expect(object["description"] as? String == "Warm & red")
        #expect(object["recipeYield"] as? String == "4 servings")
        #expect(object["keywords"] as? String == "soup,vegan")
        #expect(object["recipeIngredient"] as? [String] == ["2 tomatoes", "1 onion"])
        let steps = try #require(object["recipeInstructions"] as? [[String: String]])
        #expect(steps == [["@type": "HowToStep", "text": "Chop."], ["@type": "HowToStep", "text": "Boil."]])
        #expect(object["image"] as? String == Self.imageURL)
        #expect(object["dateModified"] as? String == "2026-11-20T10:00:00Z")
        // URLs are written as they are, not with escaped slashes.
        #expect(String(decoding: data, as: UTF8.self).contains("\"image\":\"\(Self.imageURL)\""))
    }

    @Test("the revision given, not the recipe's stored one, is the version")
    func versionIsTheArgument() throws {
        let object = try Self.object(RecipeDocument.encode(Self.soup(), revision: 12, imageURL: Self.imageURL))
        #expect(object["version"] as? Int == 12)
    }

    @Test("image is absent for a recipe without an image, even when a URL is passed, and without a URL")
    func imageAbsent() throws {
        let without = try Self.object(RecipeDocument.encode(Self.soup(image: false), revision: 7, imageURL: Self.imageURL))
        #expect(without["image"] == nil)
        #expect(without.count == 11)
        let noURL = try Self.object(RecipeDocument.encode(Self.soup(), revision: 7, imageURL: nil))
        #expect(noURL["image"] == nil)
    }

    @Test("equal input gives byte-identical documents, whatever the sync bookkeeping says")
    func byteIdentical() {
        let first = RecipeDocument.encode(Self.soup(), revision: 7, imageURL: Self.imageURL)
        let second = RecipeDocument.encode(Self.soup(), revision: 7, imageURL: Self.imageURL)
        let otherBookkeeping = RecipeDocument.encode(
            Self.soup(sync: SyncInfo(state: .waiting, revision: 9, syncedRevision: 3, attempts: 4, lastError: "x")),
            revision: 7, imageURL: Self.imageURL)
        #expect(!first.isEmpty)
        #expect(first == second)
        #expect(first == otherBookkeeping)
        #expect(first != RecipeDocument.encode(Self.soup(), revision: 8, imageURL: Self.imageURL))
    }
}
