/// A field, or a place in an ingredient or step list, that a merge found changed differently on both sides.
public enum ConflictField: Sendable, Hashable, Comparable {
    /// The title.
    case title
    /// The description.
    case description
    /// The yield (named `yield` to a person).
    case recipeYield
    /// The keywords.
    case keywords
    /// The image.
    case image
    /// The ingredient at this place of the draft's list, numbered from 1.
    case ingredient(Int)
    /// The step at this place of the draft's list, numbered from 1.
    case step(Int)

    /// The name a person sees and types: `title`, `description`, `yield`, `keywords`, `image`, `ingredient 3`,
    /// `step 2`.
    public var name: String {
        switch self {
        case .title: "title"
        case .description: "description"
        case .recipeYield: "yield"
        case .keywords: "keywords"
        case .image: "image"
        case .ingredient(let number): "ingredient \(number)"
        case .step(let number): "step \(number)"
        }
    }

    /// The field `name` names (as `name` spells it, any run of spaces before the number), or nil.
    public init?(name: String) {
        let words = name.split(separator: " ")
        switch (words.first, words.count) {
        case ("title", 1): self = .title
        case ("description", 1): self = .description
        case ("yield", 1): self = .recipeYield
        case ("keywords", 1): self = .keywords
        case ("image", 1): self = .image
        case ("ingredient", 2), ("step", 2):
            guard let number = Int(words[1]), number >= 1, String(number) == words[1] else { return nil }
            self = words[0] == "step" ? .step(number) : .ingredient(number)
        default: return nil
        }
    }

    /// The list the field is a place of, if it is one.
    var list: RecipeList? {
        switch self {
        case .ingredient: .ingredients
        case .step: .steps
        default: nil
        }
    }

    /// The place in its list, numbered from 1, if the field is a list element.
    var number: Int? {
        switch self {
        case .ingredient(let number), .step(let number): number
        default: nil
        }
    }

    /// Recipe order: title, description, yield, keywords, image, then ingredients and steps by number.
    public static func < (lhs: ConflictField, rhs: ConflictField) -> Bool {
        (lhs.rank, lhs.number ?? 0) < (rhs.rank, rhs.number ?? 0)
    }

    private var rank: Int {
        switch self {
        case .title: 0
        case .description: 1
        case .recipeYield: 2
        case .keywords: 3
        case .image: 4
        case .ingredient: 5
        case .step: 6
        }
    }
}

/// The two lists a recipe merges element by element.
public enum RecipeList: String, Sendable, CaseIterable {
    /// The ingredient lines.
    case ingredients
    /// The instruction steps.
    case steps

    /// The conflict field of the element at `number` (from 1) of this list.
    func field(_ number: Int) -> ConflictField {
        self == .ingredients ? .ingredient(number) : .step(number)
    }

    /// This list of `fields`.
    func elements(of fields: RecipeFields) -> [String] {
        self == .ingredients ? fields.ingredients : fields.steps
    }

    /// Sets this list of `fields` to `elements`.
    func set(_ elements: [String], in fields: inout RecipeFields) {
        if self == .ingredients { fields.ingredients = elements } else { fields.steps = elements }
    }
}

/// One side's value in a conflict.
public enum ConflictValue: Sendable, Hashable {
    /// Nothing: the list element was removed on that side, or there is no image.
    case absent
    /// A text field's value, or one list element.
    case text(String)
    /// An image.
    case image(RecipeImage)
    /// A run of list elements (a conflict over several elements, or where a run was replaced by one of another
    /// length); empty when that side removed the run.
    case elements([String])

    /// The list elements this value stands for in its list: none, one, or the run.
    var listElements: [String] {
        switch self {
        case .absent, .image: []
        case .text(let text): [text]
        case .elements(let elements): elements
        }
    }
}

/// A field (or list place) changed differently here and on the server, with the base and both values.
///
/// The merged draft keeps `mine` in that place until the conflict is resolved; `theirs` is the server's value.
/// For a list element, `field`'s number is where `mine` starts in the draft's list; when `mine` is absent or
/// empty (removed here), it is where the server's value would go.
public struct FieldConflict: Sendable, Hashable {
    /// What is in conflict.
    public var field: ConflictField
    /// The value both sides started from.
    public var base: ConflictValue
    /// This device's value (the one the draft keeps).
    public var mine: ConflictValue
    /// The server's value.
    public var theirs: ConflictValue

    /// Creates a conflict.
    public init(field: ConflictField, base: ConflictValue, mine: ConflictValue, theirs: ConflictValue) {
        self.field = field
        self.base = base
        self.mine = mine
        self.theirs = theirs
    }

    /// The same conflict seen from the other device: mine and theirs swapped.
    public var swappingSides: FieldConflict {
        FieldConflict(field: field, base: base, mine: theirs, theirs: mine)
    }
}
