import Foundation

/// The stored form of a recipe's fields (the base of two-way sync, kept per recipe): one JSON object with sorted
/// keys, `{"description","image"?,"ingredients","keywords","recipeYield","steps","title"}`, the image as
/// `RecipeImage` writes it. Equal fields give equal text, so the store can compare it as it writes.
extension RecipeFields: Codable {
    private enum Key: String, CodingKey { case title, description, recipeYield, keywords, ingredients, steps, image }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(
            title: try container.decode(String.self, forKey: .title),
            description: try container.decode(String.self, forKey: .description),
            recipeYield: try container.decode(String.self, forKey: .recipeYield),
            keywords: try container.decode(String.self, forKey: .keywords),
            ingredients: try container.decode([String].self, forKey: .ingredients),
            steps: try container.decode([String].self, forKey: .steps),
            image: try container.decodeIfPresent(RecipeImage.self, forKey: .image))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(title, forKey: .title)
        try container.encode(description, forKey: .description)
        try container.encode(recipeYield, forKey: .recipeYield)
        try container.encode(keywords, forKey: .keywords)
        try container.encode(ingredients, forKey: .ingredients)
        try container.encode(steps, forKey: .steps)
        try container.encodeIfPresent(image, forKey: .image)
    }

    /// The stored JSON text.
    public var storedJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Reads stored JSON text; nil when it is not the stored form.
    public init?(storedJSON text: String) {
        guard let fields = try? JSONDecoder().decode(RecipeFields.self, from: Data(text.utf8)) else { return nil }
        self = fields
    }
}
