import Foundation

/// The stored form of a recipe's fields (the base of two-way sync, kept per recipe): one JSON object with sorted
/// keys, `{"description","image"?,"ingredients","keywords","recipeYield","steps","title"}`, the image as
/// `RecipeImage` writes it, a step as its text or, when it is in a section, `{"section","text"}`. The details
/// (`prepTime` … `suitableForDiet`, under their schema.org names), the other properties (`other`) and the forms
/// (`forms`) are written only when set, so that the bases stored before they existed read and write back as the
/// same text. Equal fields give equal text, so the store can compare it as it writes.
extension RecipeFields: Codable {
    private enum Key: String, CodingKey {
        case title, description, recipeYield, keywords, ingredients, steps, image, other, forms
        case prepTime, cookTime, totalTime, recipeCategory, recipeCuisine, author, url, nutrition, tool, suitableForDiet
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func text(_ key: Key) throws -> String { try container.decodeIfPresent(String.self, forKey: key) ?? "" }
        func list(_ key: Key) throws -> [String] { try container.decodeIfPresent([String].self, forKey: key) ?? [] }
        let details = RecipeDetails(
            prepTime: try text(.prepTime), cookTime: try text(.cookTime), totalTime: try text(.totalTime),
            recipeCategory: try list(.recipeCategory), recipeCuisine: try list(.recipeCuisine), author: try text(.author),
            url: try text(.url), nutrition: try container.decodeIfPresent([String: String].self, forKey: .nutrition) ?? [:],
            tool: try list(.tool), suitableForDiet: try list(.suitableForDiet))
        self.init(
            title: try container.decode(String.self, forKey: .title),
            description: try container.decode(String.self, forKey: .description),
            recipeYield: try container.decode(String.self, forKey: .recipeYield),
            keywords: try container.decode(String.self, forKey: .keywords),
            ingredients: try container.decode([String].self, forKey: .ingredients),
            steps: try container.decode([StoredStep].self, forKey: .steps).map(\.step),
            details: details,
            received: ReceivedProperties(
                other: try container.decodeIfPresent([String: String].self, forKey: .other) ?? [:],
                forms: try container.decodeIfPresent([String: String].self, forKey: .forms)),
            image: try container.decodeIfPresent(RecipeImage.self, forKey: .image))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(title, forKey: .title)
        try container.encode(description, forKey: .description)
        try container.encode(recipeYield, forKey: .recipeYield)
        try container.encode(keywords, forKey: .keywords)
        try container.encode(ingredients, forKey: .ingredients)
        try container.encode(steps.map(StoredStep.init), forKey: .steps)
        try container.encodeIfPresent(image, forKey: .image)
        for (key, value) in [(Key.prepTime, details.prepTime), (.cookTime, details.cookTime), (.totalTime, details.totalTime),
                             (.author, details.author), (.url, details.url)] where !value.isEmpty {
            try container.encode(value, forKey: key)
        }
        for (key, value) in [(Key.recipeCategory, details.recipeCategory), (.recipeCuisine, details.recipeCuisine),
                             (.tool, details.tool), (.suitableForDiet, details.suitableForDiet)] where !value.isEmpty {
            try container.encode(value, forKey: key)
        }
        if !details.nutrition.isEmpty { try container.encode(details.nutrition, forKey: .nutrition) }
        if !received.other.isEmpty { try container.encode(received.other, forKey: .other) }
        try container.encodeIfPresent(received.forms, forKey: .forms)
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

/// A step as the stored form writes it: its text alone when it is in no section, else `{"section","text"}`.
struct StoredStep: Codable {
    var step: Step

    init(_ step: Step) { self.step = step }

    private enum Key: String, CodingKey { case section, text }

    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            step = Step(text: text)
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        step = Step(text: try container.decode(String.self, forKey: .text), section: try container.decode(String.self, forKey: .section))
    }

    func encode(to encoder: any Encoder) throws {
        if step.section.isEmpty {
            var container = encoder.singleValueContainer()
            try container.encode(step.text)
        } else {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(step.section, forKey: .section)
            try container.encode(step.text, forKey: .text)
        }
    }
}
