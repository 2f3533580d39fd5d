import Foundation

/// How one schema.org `Recipe` property that `recipes` reads as a field maps to JSON-LD: read from a document as it is
/// (whatever shape another app wrote: a text or a list, a `Person` or a name, `HowToSection`s), and written in
/// `recipes`' own shape (compact JSON, the shape the contract shows).
///
/// Reading what was written gives the same value back (a property test holds every property to it), so a recipe
/// written and read again is the same recipe.
struct RecipeProperty: Sendable {
    /// The property's name in JSON-LD.
    let key: String
    /// Sets the field from a parsed JSON value (`JSONSerialization`'s); false when the value cannot be a recipe's.
    let read: @Sendable (Any, inout RecipeFields) -> Bool
    /// Whether the field holds a value (an unset one is written only when the recipe arrived with it).
    let isSet: @Sendable (RecipeFields) -> Bool
    /// Whether the property is written even when unset, for a recipe made here (the contract's document always has
    /// `description`, `keywords`, `recipeYield`, `recipeIngredient` and `recipeInstructions`).
    let alwaysWritten: Bool
    /// Appends the field's value as compact JSON.
    let write: @Sendable (RecipeFields, inout [UInt8]) -> Void

    /// The properties read as fields, in sorted key order. `identifier`, `version`, `dateModified`, `@type` and
    /// `image` are the sync's and the export's to write.
    static let all: [RecipeProperty] = [
        RecipeProperty(
            key: "@context", read: { _, _ in true }, isSet: { _ in true }, alwaysWritten: true,
            write: { _, out in JSONBytes.appendString("https://schema.org", to: &out) }),
        person("author", \.details.author),
        time("cookTime", \.details.cookTime),
        text("description", \.description, alwaysWritten: true, read: RecipeJSONLD.text),
        text("keywords", \.keywords, alwaysWritten: true, read: RecipeJSONLD.keywords),
        text("name", \.title, alwaysWritten: true, read: { $0 as? String }),
        nutrition(),
        time("prepTime", \.details.prepTime),
        list("recipeCategory", \.details.recipeCategory),
        list("recipeCuisine", \.details.recipeCuisine),
        RecipeProperty(
            key: "recipeIngredient",
            read: { value, fields in
                guard let list = RecipeJSONLD.documentIngredients(value) else { return false }
                fields.ingredients = list
                return true
            },
            isSet: { !$0.ingredients.isEmpty }, alwaysWritten: true,
            write: { fields, out in JSONBytes.appendStrings(fields.ingredients, to: &out) }),
        RecipeProperty(
            key: "recipeInstructions",
            read: { value, fields in
                guard let steps = RecipeJSONLD.documentSteps(value) else { return false }
                fields.steps = steps
                return true
            },
            isSet: { !$0.steps.isEmpty }, alwaysWritten: true,
            write: { fields, out in RecipeJSONLD.appendInstructions(fields.steps, to: &out) }),
        text("recipeYield", \.recipeYield, alwaysWritten: true, read: RecipeJSONLD.yield),
        list("suitableForDiet", \.details.suitableForDiet),
        list("tool", \.details.tool),
        time("totalTime", \.details.totalTime),
        text("url", \.details.url, alwaysWritten: false, read: RecipeJSONLD.text),
    ]

    /// The property named `key`, if it is read as a field.
    static func named(_ key: String) -> RecipeProperty? { byKey[key] }

    private static let byKey = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    /// The keys a document may hold that are neither fields nor other properties: the sync's and the export's own.
    static let protocolKeys: Set<String> = ["@type", "identifier", "version", "dateModified", "image"]

    // MARK: Kinds of property

    static func text(
        _ key: String, _ path: any WritableKeyPath<RecipeFields, String> & Sendable, alwaysWritten: Bool,
        read: @escaping @Sendable (Any?) -> String?
    ) -> RecipeProperty {
        RecipeProperty(
            key: key,
            read: { value, fields in
                let text = read(value)
                fields[keyPath: path] = text ?? ""
                return text != nil || value is NSNull
            },
            isSet: { !$0[keyPath: path].isEmpty }, alwaysWritten: alwaysWritten,
            write: { fields, out in JSONBytes.appendString(fields[keyPath: path], to: &out) })
    }

    static func time(_ key: String, _ path: any WritableKeyPath<RecipeFields, String> & Sendable) -> RecipeProperty {
        text(key, path, alwaysWritten: false, read: RecipeJSONLD.text)
    }

    static func list(_ key: String, _ path: any WritableKeyPath<RecipeFields, [String]> & Sendable) -> RecipeProperty {
        RecipeProperty(
            key: key,
            read: { value, fields in
                fields[keyPath: path] = RecipeJSONLD.texts(value)
                return true
            },
            isSet: { !$0[keyPath: path].isEmpty }, alwaysWritten: false,
            write: { fields, out in JSONBytes.appendStrings(fields[keyPath: path], to: &out) })
    }

    /// `author`: read as a name (a text, a `Person` or `Organization`'s `name`, several joined by ", "), written as a
    /// `Person`.
    static func person(_ key: String, _ path: any WritableKeyPath<RecipeFields, String> & Sendable) -> RecipeProperty {
        RecipeProperty(
            key: key,
            read: { value, fields in
                fields[keyPath: path] = RecipeJSONLD.names(value)
                return true
            },
            isSet: { !$0[keyPath: path].isEmpty }, alwaysWritten: false,
            write: { fields, out in
                out.append(contentsOf: #"{"@type":"Person","name":"#.utf8)
                JSONBytes.appendString(fields[keyPath: path], to: &out)
                out.append(UInt8(ascii: "}"))
            })
    }

    /// `nutrition`: a `NutritionInformation`'s properties as text (those starting with `@` left out), written with
    /// its `@type` and the properties in sorted order.
    static func nutrition() -> RecipeProperty {
        RecipeProperty(
            key: "nutrition",
            read: { value, fields in
                fields.details.nutrition = RecipeJSONLD.nutrition(value)
                return true
            },
            isSet: { !$0.details.nutrition.isEmpty }, alwaysWritten: false,
            write: { fields, out in
                out.append(contentsOf: #"{"@type":"NutritionInformation""#.utf8)
                for (name, value) in fields.details.nutrition.sorted(by: { JSONBytes.precedes($0.key, $1.key) }) {
                    out.append(UInt8(ascii: ","))
                    JSONBytes.appendString(name, to: &out)
                    out.append(UInt8(ascii: ":"))
                    JSONBytes.appendString(value, to: &out)
                }
                out.append(UInt8(ascii: "}"))
            })
    }
}
