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
        let data = RecipeDocument.encode(Self.soup(), version: 7, imageURL: Self.imageURL)
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
        let object = try Self.object(RecipeDocument.encode(Self.soup(), version: 12, imageURL: Self.imageURL))
        #expect(object["version"] as? Int == 12)
    }

    @Test("image is absent for a recipe without an image, even when a URL is passed, and without a URL")
    func imageAbsent() throws {
        let without = try Self.object(RecipeDocument.encode(Self.soup(image: false), version: 7, imageURL: Self.imageURL))
        #expect(without["image"] == nil)
        #expect(without.count == 11)
        let noURL = try Self.object(RecipeDocument.encode(Self.soup(), version: 7, imageURL: nil))
        #expect(noURL["image"] == nil)
    }

    @Test("equal input gives byte-identical documents, whatever the sync bookkeeping says")
    func byteIdentical() {
        let first = RecipeDocument.encode(Self.soup(), version: 7, imageURL: Self.imageURL)
        let second = RecipeDocument.encode(Self.soup(), version: 7, imageURL: Self.imageURL)
        let otherBookkeeping = RecipeDocument.encode(
            Self.soup(sync: SyncInfo(state: .waiting, revision: 9, syncedRevision: 3, attempts: 4, lastError: "x")),
            version: 7, imageURL: Self.imageURL)
        #expect(!first.isEmpty)
        #expect(first == second)
        #expect(first == otherBookkeeping)
        #expect(first != RecipeDocument.encode(Self.soup(), version: 8, imageURL: Self.imageURL))
    }

    /// The contract's document through `JSONEncoder` (sorted keys, slashes not escaped): what the hand-written
    /// encoder must reproduce byte for byte.
    struct Reference: Encodable {
        struct HowToStep: Encodable {
            var type = "HowToStep"
            var text: String
            enum CodingKeys: String, CodingKey {
                case type = "@type"
                case text
            }
        }
        var context = "https://schema.org"
        var type = "Recipe"
        var identifier: String
        var version: Int64
        var name, description, recipeYield, keywords: String
        var recipeIngredient: [String]
        var recipeInstructions: [HowToStep]
        var image: String?
        var dateModified: String
        enum CodingKeys: String, CodingKey {
            case context = "@context"
            case type = "@type"
            case identifier, version, name, description, recipeYield, keywords, recipeIngredient, recipeInstructions
            case image, dateModified
        }

        static func encode(_ recipe: Recipe, revision: Int64, imageURL: String?) throws -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(Reference(
                identifier: recipe.uuid.uuidString.lowercased(), version: revision, name: recipe.title,
                description: recipe.description, recipeYield: recipe.recipeYield, keywords: recipe.keywords,
                recipeIngredient: recipe.ingredients.map(\.text),
                recipeInstructions: recipe.steps.map { HowToStep(text: $0.text) },
                image: recipe.image == nil ? nil : imageURL, dateModified: recipe.dateModified.formatted(.iso8601)))
        }
    }

    @Test("byte for byte what JSONEncoder writes, for 2,000 random recipes with quotes, backslashes, every control character, slashes and non-ASCII text")
    func sameBytesAsJSONEncoder() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = (0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }
            + ["\"", "\\", "/", "a", "Z", " ", "é", "ß", "€", "😀", "\u{7F}", "\u{2028}", "\u{FEFF}", "<", "&"]
        func text() -> String {
            String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        for round in 0..<2_000 {
            let recipe = Recipe(
                id: Int64(round), uuid: UUID(), title: text(), description: text(), recipeYield: text(), keywords: text(),
                ingredients: (0..<Int.random(in: 0...3, using: &generator)).map { _ in Ingredient(text: text()) },
                steps: (0..<Int.random(in: 0...3, using: &generator)).map { _ in Step(text: text()) },
                image: Bool.random(using: &generator)
                    ? ImageReference(sha256: Self.sha, format: .jpeg, byteCount: 1, localFileName: nil) : nil,
                sync: SyncInfo(state: .pending, revision: 1),
                // 2000-01-01 to 2100-01-01, with fractions of a second.
                dateModified: Date(timeIntervalSince1970: Double.random(in: 946_684_800..<4_102_444_800, using: &generator)))
            let revision = Int64.random(in: 1...Int64.max, using: &generator)
            let url = Bool.random(using: &generator) ? "https://example.org/v1/images/\(text())" : nil
            let ours = RecipeDocument.encode(recipe, version: revision, imageURL: url)
            let reference = try Reference.encode(recipe, revision: revision, imageURL: url)
            #expect(ours == reference, "\(String(decoding: ours, as: UTF8.self)) vs \(String(decoding: reference, as: UTF8.self))")
            if ours != reference { return }
        }
    }
}
