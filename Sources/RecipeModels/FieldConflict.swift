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
    /// `prepTime` (named `preptime`).
    case prepTime
    /// `cookTime` (named `cooktime`).
    case cookTime
    /// `totalTime` (named `totaltime`).
    case totalTime
    /// `recipeCategory` (named `category`), as one list.
    case recipeCategory
    /// `recipeCuisine` (named `cuisine`), as one list.
    case recipeCuisine
    /// The author.
    case author
    /// The page the recipe came from.
    case url
    /// `tool` (named `tools`), as one list.
    case tool
    /// `suitableForDiet` (named `diets`), as one list.
    case suitableForDiet
    /// The image.
    case image
    /// The ingredient at this place of the draft's list, numbered from 1.
    case ingredient(Int)
    /// The step at this place of the draft's list, numbered from 1.
    case step(Int)
    /// One property of `nutrition`, by its key (named `nutrition calories`).
    case nutrition(String)
    /// A property `recipes` keeps as it came, by its key (named `property aggregateRating`).
    case property(String)

    /// The value fields with their names, in recipe order.
    static let named: [(ConflictField, String)] = [
        (.title, "title"), (.description, "description"), (.recipeYield, "yield"), (.keywords, "keywords"),
        (.prepTime, "preptime"), (.cookTime, "cooktime"), (.totalTime, "totaltime"), (.recipeCategory, "category"),
        (.recipeCuisine, "cuisine"), (.author, "author"), (.url, "url"), (.tool, "tools"), (.suitableForDiet, "diets"),
        (.image, "image"),
    ]

    /// The name a person sees and types: `title`, `description`, `yield`, `keywords`, `preptime`, `cooktime`,
    /// `totaltime`, `category`, `cuisine`, `author`, `url`, `tools`, `diets`, `image`, `ingredient 3`, `step 2`,
    /// `nutrition calories`, `property aggregateRating`.
    public var name: String {
        switch self {
        case .ingredient(let number): "ingredient \(number)"
        case .step(let number): "step \(number)"
        case .nutrition(let key): "nutrition \(key)"
        case .property(let key): "property \(key)"
        default: Self.named.first { $0.0 == self }?.1 ?? ""
        }
    }

    /// The field `name` names (as `name` spells it, any run of spaces before a number), or nil.
    public init?(name: String) {
        if let (field, _) = Self.named.first(where: { $0.1 == name }) {
            self = field
            return
        }
        for (prefix, make) in [("nutrition ", ConflictField.nutrition), ("property ", ConflictField.property)]
        where name.hasPrefix(prefix) && name.count > prefix.count {
            self = make(String(name.dropFirst(prefix.count)))
            return
        }
        let words = name.split(separator: " ")
        switch (words.first, words.count) {
        case ("ingredient", 2), ("step", 2):
            guard let number = Int(words[1]), number >= 1, String(number) == words[1] else { return nil }
            self = words[0] == "step" ? .step(number) : .ingredient(number)
        default: return nil
        }
    }

    /// The list the field is a place of, if it is one.
    public var list: RecipeList? {
        switch self {
        case .ingredient: .ingredients
        case .step: .steps
        default: nil
        }
    }

    /// The place in its list, numbered from 1, if the field is a list element.
    public var number: Int? {
        switch self {
        case .ingredient(let number), .step(let number): number
        default: nil
        }
    }

    /// The key of a nutrition property or a kept property.
    var key: String {
        switch self {
        case .nutrition(let key), .property(let key): key
        default: ""
        }
    }

    /// Recipe order: the value fields in `named` order, then ingredients and steps by number, nutrition and the kept
    /// properties by key.
    public static func < (lhs: ConflictField, rhs: ConflictField) -> Bool {
        if lhs.rank != rhs.rank { return lhs.rank < rhs.rank }
        if lhs.number != rhs.number { return (lhs.number ?? 0) < (rhs.number ?? 0) }
        return lhs.key < rhs.key
    }

    private var rank: Int {
        switch self {
        case .ingredient: 100
        case .step: 101
        case .nutrition: 102
        case .property: 103
        default: Self.named.firstIndex { $0.0 == self } ?? 0
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

    /// The texts of this list of `fields` (a step's section left out).
    func elements(of fields: RecipeFields) -> [String] {
        self == .ingredients ? fields.ingredients : fields.steps.map(\.text)
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
    /// length), or the whole of a list field (`category`, `tools`, …); empty when that side removed the run.
    case elements([String])
    /// One step that is in a section (a step in none is `text`).
    case step(Step)
    /// A run of steps of which at least one is in a section (a run in none is `elements`).
    case steps([Step])

    /// The list elements this value stands for in its list, as texts: none, one, or the run.
    var listElements: [String] {
        switch self {
        case .absent, .image: []
        case .text(let text): [text]
        case .elements(let elements): elements
        case .step(let step): [step.text]
        case .steps(let steps): steps.map(\.text)
        }
    }

    /// The steps this value stands for in the steps list: none, one, or the run.
    var stepElements: [Step] {
        switch self {
        case .absent, .image: []
        case .text(let text): [Step(text: text)]
        case .elements(let elements): elements.map { Step(text: $0) }
        case .step(let step): [step]
        case .steps(let steps): steps
        }
    }

    /// One step as a conflict value: `text` when it is in no section.
    static func single(_ step: Step) -> ConflictValue { step.section.isEmpty ? .text(step.text) : .step(step) }

    /// A run of steps as a conflict value: `elements` when none is in a section.
    static func run(_ steps: [Step]) -> ConflictValue {
        steps.allSatisfy { $0.section.isEmpty } ? .elements(steps.map(\.text)) : .steps(steps)
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
