import Foundation

/// A recipe draft as the user edits it, with the bookkeeping that says how far the server has it.
///
/// The local `id` is the small number the REPL and `recipes list` show; `uuid` is the identity the
/// server knows the recipe by and never changes.
public struct Recipe: Sendable, Equatable, Identifiable {
    /// The small local number shown by `list`.
    public var id: Int64
    /// The recipe's identity on the server (`identifier` in its JSON).
    public var uuid: UUID
    /// The recipe's name.
    public var title: String
    /// Free text describing the dish; empty when unset.
    public var description: String
    /// How much it makes, e.g. "4 servings"; empty when unset.
    public var recipeYield: String
    /// Comma-separated keywords; empty when unset.
    public var keywords: String
    /// The ingredients, in order.
    public var ingredients: [Ingredient]
    /// The instruction steps, in order, each with the name of its section (if any).
    public var steps: [Step]
    /// Times, category, cuisine, author, the page's address, nutrition, tools and diets.
    public var details: RecipeDetails
    /// The JSON-LD properties kept as they came: every other property, and the forms of the known ones.
    public var received: ReceivedProperties
    /// The attached image, if any.
    public var image: ImageReference?
    /// Where the recipe stands with the server.
    public var sync: SyncInfo
    /// When the recipe was last changed locally.
    public var dateModified: Date

    /// Creates a recipe value.
    public init(
        id: Int64, uuid: UUID, title: String, description: String = "", recipeYield: String = "",
        keywords: String = "", ingredients: [Ingredient] = [], steps: [Step] = [], details: RecipeDetails = RecipeDetails(),
        received: ReceivedProperties = ReceivedProperties(), image: ImageReference? = nil, sync: SyncInfo, dateModified: Date
    ) {
        self.id = id
        self.uuid = uuid
        self.title = title
        self.description = description
        self.recipeYield = recipeYield
        self.keywords = keywords
        self.ingredients = ingredients
        self.steps = steps
        self.details = details
        self.received = received
        self.image = image
        self.sync = sync
        self.dateModified = dateModified
    }
}

/// One line of a recipe's ingredient list, e.g. "2 tomatoes".
public struct Ingredient: Sendable, Equatable, Hashable {
    /// The ingredient as the user wrote it.
    public var text: String

    /// Creates an ingredient.
    public init(text: String) { self.text = text }
}

/// One instruction step of a recipe (a schema.org `HowToStep`), with the name of the `HowToSection` it is in.
public struct Step: Sendable, Equatable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// What to do.
    public var text: String
    /// The name of the section the step is in ("For the sauce"); empty when it is in none. Consecutive steps with the
    /// same name form one section.
    public var section: String

    /// Creates a step.
    public init(text: String, section: String = "") {
        self.text = text
        self.section = section
    }

    /// A step without a section.
    public init(stringLiteral text: String) { self.init(text: text) }

    /// The text, after its section's name in brackets when it has one: `[For the sauce] Chop.`
    public var description: String { section.isEmpty ? text : "[\(section)] \(text)" }
}
