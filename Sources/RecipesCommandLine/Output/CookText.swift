import Foundation
import RecipeModels

/// A recipe as `recipes cook` shows it: its content scaled and in the measures asked for, its ingredients by
/// section, the ingredients each step uses and the times each step names; and its text for a pipe, the whole
/// recipe in the order a cook follows it.
struct CookText: Sendable {
    /// The recipe's content as shown (`RecipeContent.shown`).
    let content: RecipeContent
    /// The factor the quantities were scaled by, if any.
    let scale: Double?
    /// The measures the quantities are in, if asked.
    let units: UnitSystem?
    /// The ingredients' sections (headings are lines of `content.ingredients`).
    let sections: IngredientSections
    /// For each step, the indices of the ingredients it uses.
    let uses: [[Int]]
    /// For each step, the times it names.
    let times: [[StepDuration]]

    /// The cook's view of `recipe`, scaled by `scale` and in `units` when given.
    init(_ recipe: Recipe, scale: Double?, units: UnitSystem?) {
        self.init(RecipeContent(recipe).shown(scaledBy: scale, in: units), scale: scale, units: units)
    }

    /// The cook's view of `content` as already shown.
    init(_ content: RecipeContent, scale: Double?, units: UnitSystem?) {
        self.content = content
        self.scale = scale
        self.units = units
        sections = IngredientSections(content.ingredients)
        uses = StepIngredients.uses(ingredients: content.ingredients, steps: content.steps.map(\.text))
        times = content.steps.map { StepDuration.all(in: $0.text) }
    }

    /// The title, cleaned of control characters.
    var title: String { TerminalText.clean(content.title) }

    /// "8 servings (scaled × 2)", or the yield as kept; empty without a yield or a scale.
    var yieldLine: String {
        let yield = TerminalText.clean(content.recipeYield)
        guard let scale else { return yield }
        let scaled = "scaled × " + QuantityScaling.decimal(scale)
        return yield.isEmpty ? scaled : yield + " (" + scaled + ")"
    }

    /// The recipe's times that are set: `prep 15m · cook 45m`; empty when none is.
    var timesLine: String {
        [("prep", content.details.prepTime), ("cook", content.details.cookTime), ("total", content.details.totalTime)]
            .filter { !$0.1.isEmpty }
            .map { $0.0 + " " + TerminalText.clean(RecipeDuration.display($0.1)) }
            .joined(separator: " · ")
    }

    /// The ingredient line at `index`, cleaned.
    func ingredient(_ index: Int) -> String { TerminalText.clean(content.ingredients[index]) }

    /// The recipe for a pipe: the title, the yield (and the times and measures, when set), the ingredients under
    /// their sections' names, then each step numbered, under its section's name, followed by the ingredients it uses.
    func plain() -> String {
        var lines = [title]
        if !yieldLine.isEmpty { lines.append("yield: " + yieldLine) }
        if !timesLine.isEmpty { lines.append("times: " + timesLine) }
        if let units { lines.append("measures: " + RecipeFormatter.measuresLine(units)) }
        lines.append("")
        lines.append(content.ingredients.isEmpty ? "Ingredients: none" : "Ingredients:")
        for section in sections.sections {
            if !section.name.isEmpty { lines.append("  == " + TerminalText.clean(section.name) + " ==") }
            for index in section.ingredients { lines.append("  " + ingredient(index)) }
        }
        lines.append("")
        lines.append(content.steps.isEmpty ? "Steps: none" : "Steps:")
        var section = ""
        for (index, step) in content.steps.enumerated() {
            if step.section != section {
                section = step.section
                lines.append("  == " + (section.isEmpty ? "" : TerminalText.clean(section) + " ") + "==")
            }
            let number = "  \(index + 1). "
            let indent = String(repeating: " ", count: number.count)
            let text = FieldLines.textLines(step.text)
            lines.append(number + text[0])
            for line in text.dropFirst() { lines.append(indent + line) }
            for used in uses[index] { lines.append(indent + "- " + ingredient(used)) }
        }
        return lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n") + "\n"
    }
}
