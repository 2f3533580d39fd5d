import Foundation
import RecipeModels

/// The recipe as the server receives it: a schema.org `Recipe` in JSON-LD (CONTRACT section 3).
///
/// The bytes are a pure function of the recipe, the revision and the image URL, so a retried upload sends the same
/// document and the outbox file of a revision is reproducible.
public enum RecipeDocument {
    /// The JSON document for `recipe` at `revision`, referring to the server's `imageURL` when it has an image.
    public static func encode(_ recipe: Recipe, revision: Int64, imageURL: String?) -> Data {
        let document = Document(
            context: "https://schema.org", type: "Recipe", identifier: recipe.uuid.uuidString.lowercased(),
            version: revision, name: recipe.title, description: recipe.description, recipeYield: recipe.recipeYield,
            keywords: recipe.keywords, recipeIngredient: recipe.ingredients.map(\.text),
            recipeInstructions: recipe.steps.map { HowToStep(type: "HowToStep", text: $0.text) },
            image: recipe.image == nil ? nil : imageURL, dateModified: recipe.dateModified.formatted(.iso8601))
        // Encoding plain strings, integers and arrays cannot fail.
        return (try? encoder.encode(document)) ?? Data()
    }

    private struct HowToStep: Encodable {
        var type: String
        var text: String
        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case text
        }
    }

    private struct Document: Encodable {
        var context: String
        var type: String
        var identifier: String
        var version: Int64
        var name: String
        var description: String
        var recipeYield: String
        var keywords: String
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
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
