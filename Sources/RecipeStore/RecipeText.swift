import RecipeModels

/// A text field of a recipe, named as the edit commands name it.
public enum TextField: String, Sendable, Equatable, CaseIterable {
    case title
    case description
    case yield
    case keywords
    case ingredient
    case step
    case preptime
    case cooktime
    case totaltime
    case author
    case url
    case category
    case cuisine
    case tools
    case diets
    case nutrition
    case section

    /// Whether the field may hold several lines: a description or a step is prose, the rest is one line each.
    public var allowsLineBreaks: Bool { self == .description || self == .step }
}

/// What makes a text unfit to be stored in a recipe field.
public enum TextProblem: Sendable, Equatable {
    /// A NUL byte: SQLite and C strings end the text there, so what is stored would not be what was typed.
    case nulByte
    /// A control character (C0 other than tab and line breaks, DEL, C1), given by its code point: escape
    /// sequences and the like would reach every terminal and device that shows the recipe.
    case controlCharacter(UInt32)
    /// A line break in a field that is one line (title, yield, keywords, an ingredient).
    case lineBreak
}

/// The rule every text of a recipe passes before it is stored, whichever command or device it came from.
///
/// Allowed: any Unicode text with tabs, and line breaks (LF, CR, U+2028, U+2029) in a description or a step.
/// Refused: NUL, every other C0 control character, DEL and the C1 controls (U+0080–U+009F).
public enum RecipeText {
    /// The first problem of `text` as the value of `field`, or nil when it may be stored.
    public static func problem(in text: String, field: TextField) -> TextProblem? {
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00:
                return .nulByte
            case 0x09:
                continue
            case 0x0A, 0x0D, 0x2028, 0x2029:
                if !field.allowsLineBreaks { return .lineBreak }
            case 0x01...0x1F, 0x7F...0x9F:
                return .controlCharacter(scalar.value)
            default:
                continue
            }
        }
        return nil
    }

    /// The fields and texts a change sets or adds.
    static func texts(of change: RecipeChange) -> [(field: TextField, text: String)] {
        switch change {
        case .title(let text): [(.title, text)]
        case .description(let text): [(.description, text)]
        case .yield(let text): [(.yield, text)]
        case .keywords(let text): [(.keywords, text)]
        case .addIngredient(let text), .setIngredient(_, let text), .insertIngredient(_, let text): [(.ingredient, text)]
        case .addStep(let text), .setStep(_, let text), .insertStep(_, let text): [(.step, text)]
        case .detail(let detail, let text): [(detail.textField, text)]
        case .detailList(let list, let texts): texts.map { (list.textField, $0) }
        case .nutrition(let key, let value): [(.nutrition, key), (.nutrition, value)]
        case .stepSection(_, _, let name): [(.section, name)]
        case .removeIngredient, .removeStep, .moveIngredient, .moveStep, .setImage, .clearImage: []
        }
    }

    /// The first field of `content` that `problem(in:field:)` refuses, with its problem.
    static func problem(in content: RecipeContent) -> (field: TextField, problem: TextProblem)? {
        let details = content.details
        var texts: [(TextField, String)] = [
            (.title, content.title), (.description, content.description), (.yield, content.recipeYield),
            (.keywords, content.keywords), (.preptime, details.prepTime), (.cooktime, details.cookTime),
            (.totaltime, details.totalTime), (.author, details.author), (.url, details.url),
        ]
        texts += content.ingredients.map { (.ingredient, $0) }
        texts += content.steps.flatMap { [(TextField.step, $0.text), (.section, $0.section)] }
        texts += details.recipeCategory.map { (.category, $0) } + details.recipeCuisine.map { (.cuisine, $0) }
        texts += details.tool.map { (.tools, $0) } + details.suitableForDiet.map { (.diets, $0) }
        texts += details.nutrition.flatMap { [(TextField.nutrition, $0.key), (.nutrition, $0.value)] }
        for (field, text) in texts {
            if let problem = problem(in: text, field: field) { return (field, problem) }
        }
        return nil
    }
}
