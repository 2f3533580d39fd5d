/// A recipe as a Markdown page (`recipes export --format markdown`), for printing or a notes app: the title, the
/// description, the times, yield and other details (diets by name: `vegetarian`), the image, the ingredients, the
/// steps under their sections' headings and the nutrition (`Fat`, `Saturated fat`, not `fatContent`).
public enum RecipeMarkdown {
    /// The page of `content`, with a link to `image` (a path or URL) when given.
    public static func page(_ content: RecipeContent, image: String? = nil) -> String {
        var lines = ["# " + escape(content.title), ""]
        if !content.description.isEmpty {
            lines += paragraph(content.description)
            lines.append("")
        }
        let details = content.details
        var facts: [String] = []
        let times = [("Prep time", details.prepTime), ("Cook time", details.cookTime), ("Total time", details.totalTime)]
            .filter { !$0.1.isEmpty }.map { "**\($0.0):** " + escape(RecipeDuration.display($0.1)) }
        if !times.isEmpty { facts.append(times.joined(separator: " · ")) }
        if !content.recipeYield.isEmpty { facts.append("**Yield:** " + escape(content.recipeYield)) }
        for (name, values) in [("Category", details.recipeCategory), ("Cuisine", details.recipeCuisine),
                               ("Diets", details.suitableForDiet.map(DietName.display)), ("Tools", details.tool)]
        where !values.isEmpty {
            facts.append("**\(name):** " + values.map(escape).joined(separator: ", "))
        }
        if !content.keywords.isEmpty {
            facts.append("**Keywords:** " + escape(content.keywords.replacingOccurrences(of: ",", with: ", ")))
        }
        if !details.author.isEmpty { facts.append("**Author:** " + escape(details.author)) }
        if !details.url.isEmpty { facts.append("**Source:** <" + details.url.replacingOccurrences(of: ">", with: "%3E") + ">") }
        if !facts.isEmpty {
            lines += facts.map { "- " + $0 }
            lines.append("")
        }
        if let image {
            lines.append("![" + escape(content.title) + "](" + image.replacingOccurrences(of: " ", with: "%20")
                .replacingOccurrences(of: ")", with: "%29") + ")")
            lines.append("")
        }
        if !content.ingredients.isEmpty {
            lines += ["## Ingredients", ""] + content.ingredients.map { "- " + escape($0) } + [""]
        }
        if !content.steps.isEmpty {
            lines += ["## Steps", ""]
            var section = ""
            for (index, step) in content.steps.enumerated() {
                if step.section != section {
                    section = step.section
                    if index > 0 { lines.append("") }
                    // Steps in no section after a section's: a break ends the section, no heading is made up.
                    lines += [section.isEmpty ? "* * *" : "### " + escape(section), ""]
                }
                let number = "\(index + 1). "
                let text = paragraph(step.text)
                lines.append(number + text[0])
                lines += text.dropFirst().map { String(repeating: " ", count: number.count) + $0 }
            }
            lines.append("")
        }
        if !details.nutrition.isEmpty {
            lines += ["## Nutrition", "", "| | |", "| --- | --- |"]
            // In schema.org's order, then any other property by name; each as a person names it (`Fat`).
            let order = { (key: String) in NutritionName.properties.firstIndex(of: key) ?? NutritionName.properties.count }
            let sorted = details.nutrition.sorted { (order($0.key), $0.key) < (order($1.key), $1.key) }
            lines += sorted.map { "| \(escape(NutritionName.label($0.key))) | \(escape($0.value)) |" }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// The lines of a text that may hold several, each escaped, kept as separate lines in Markdown (a hard break).
    static func paragraph(_ text: String) -> [String] {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { escape(String($0)) }
        return lines.enumerated().map { $0.offset < lines.count - 1 && !$0.element.isEmpty ? $0.element + "\\" : $0.element }
    }

    /// `text` with the characters Markdown would read as markup escaped by a backslash.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\`*_[]<>|#".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
