import Foundation
import RecipeModels
import RecipeStore

/// The lines of `show`: `name:` padded to 14 columns, then the value; every value cleaned (`TerminalText.clean`),
/// a value of several lines (a description, a step) indented under its first.
struct FieldLines {
    private(set) var lines: [String] = []
    static let indent = String(repeating: " ", count: 14)

    mutating func field(_ name: String, _ value: String) {
        lines.append((name + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + TerminalText.clean(value))
    }

    /// A field whose value may hold several lines.
    mutating func field(_ name: String, lines value: String) {
        let parts = Self.textLines(value)
        field(name, parts[0])
        for line in parts.dropFirst() { lines.append(Self.indent + line) }
    }

    /// A field of several values, one per line (nutrition).
    mutating func field(_ name: String, each values: [String]) {
        for (index, value) in values.enumerated() {
            if index == 0 { field(name, value) } else { lines.append(Self.indent + TerminalText.clean(value)) }
        }
    }

    mutating func line(_ text: String) { lines.append(text) }

    /// A blank line between two groups of lines: none at the start, none after another.
    mutating func gap() {
        if let last = lines.last, !last.isEmpty { lines.append("") }
    }

    /// A heading (`Ingredients`) with its lines under it, or `ingredients:  none yet`; then a gap.
    mutating func section(_ heading: String, isEmpty: Bool, _ body: (inout FieldLines) -> Void) {
        if isEmpty {
            field(heading.lowercased(), "none yet")
        } else {
            line(heading)
            body(&self)
        }
        gap()
    }

    /// The ingredients numbered from 1, as `ingredient rm <n>` counts them.
    mutating func ingredients(_ ingredients: [String]) {
        for (index, ingredient) in ingredients.enumerated() {
            lines.append("  \(index + 1). \(TerminalText.clean(ingredient))")
        }
    }

    /// The steps numbered from 1, each section's name above its first step.
    mutating func steps(_ steps: [Step]) {
        var section = ""
        for (index, step) in steps.enumerated() {
            if step.section != section {
                section = step.section
                lines.append("  == " + (section.isEmpty ? "" : TerminalText.clean(section) + " ") + "==")
            }
            let number = "  \(index + 1). "
            let text = Self.textLines(step.text)
            lines.append(number + text[0])
            for line in text.dropFirst() { lines.append(String(repeating: " ", count: number.count) + line) }
        }
    }

    /// The lines joined, each without trailing spaces, with a final newline.
    var text: String {
        lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n") + "\n"
    }

    /// The lines of `text` (at least one), each cleaned.
    static func textLines(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { TerminalText.clean(String($0)) }
    }
}

extension RecipeFormatter {
    /// `show`: what a cook reads, in the order they read it — the title and description, the yield, times and the
    /// recipe's kind, the ingredients, the steps by section, then nutrition, the source, the image and where the
    /// recipe stands with the server in one line (with why it is not there, and its conflicts, when it matters).
    /// With `scale`, the ingredients' quantities and the yield multiplied by it (a line says by how much); with
    /// `units`, measures converted. `details` (`show --details`) adds the ids, hashes, paths and attempts.
    public func show(_ recipe: Recipe, scale: Double? = nil, units: UnitSystem? = nil) -> String {
        let recipe = withoutDeadLease(recipe)
        let content = RecipeContent(recipe).shown(scaledBy: scale, in: units)
        var out = FieldLines()
        for line in FieldLines.textLines(recipe.title) { out.line(line) }
        if !recipe.description.isEmpty {
            for line in FieldLines.textLines(recipe.description) { out.line(line) }
        }
        out.gap()
        if !content.recipeYield.isEmpty { out.field("yield", content.recipeYield) }
        if let scale { out.field("scaled", "× " + QuantityScaling.decimal(scale) + " (quantities and yield)") }
        if let units { out.field("measures", Self.measuresLine(units)) }
        let details = Self.detailLines(recipe.details)
        let source = ["author", "url"]
        for (name, value) in details where !source.contains(name) { out.field(name, value) }
        if !recipe.keywords.isEmpty {
            let words = recipe.keywords.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            out.field("keywords", words.filter { !$0.isEmpty }.joined(separator: ", "))
        }
        out.gap()
        out.section("Ingredients", isEmpty: content.ingredients.isEmpty) { $0.ingredients(content.ingredients) }
        out.section("Steps", isEmpty: content.steps.isEmpty) { $0.steps(content.steps) }
        out.field("nutrition", each: Self.nutritionLines(recipe.details.nutrition, named: true))
        for (name, value) in details where source.contains(name) { out.field(name, value) }
        if let image = recipe.image {
            out.field("image", "\(image.format.rawValue.uppercased()), \(ByteFormat.describe(Int64(image.byteCount)))")
        }
        out.field("state", recipe.sync.effectiveState(at: now).rawValue)
        appendAttention(recipe, to: &out)
        return out.text
    }

    /// Why the recipe is not on the server, and its conflicts: what both views show, because each asks for action.
    func appendAttention(_ recipe: Recipe, to out: inout FieldLines) {
        if let blocked = blocked(recipe) { out.field("blocked", blocked) }
        if let conflict = recipe.sync.conflict {
            out.field("conflicts", conflict.summary)
            for line in ConflictText.lines(conflict) { out.line("  " + line) }
        }
    }

    /// Nutrition as `key value` lines, by key; `named`: each as a person names it (`Fat 9 g`, not `fatContent 9 g`).
    static func nutritionLines(_ nutrition: [String: String], named: Bool = false) -> [String] {
        nutrition.sorted { $0.key < $1.key }.map { (named ? NutritionName.label($0.key) : $0.key) + " " + $0.value }
    }

    /// `show --details`: every field under its name, the image with its hash and where its bytes are, and the whole
    /// sync state (revision, the server's version, attempts, the next attempt, the last error, the server's image).
    public func details(_ recipe: Recipe, scale: Double? = nil, units: UnitSystem? = nil) -> String {
        let recipe = withoutDeadLease(recipe)
        var out = FieldLines()
        let content = RecipeContent(recipe).shown(scaledBy: scale, in: units)
        out.field("id", String(recipe.id))
        out.field("uuid", recipe.uuid.lowercasedString)
        out.field("title", recipe.title)
        out.field("description", lines: recipe.description)
        out.field("yield", content.recipeYield)
        if let scale { out.field("scaled", "× " + QuantityScaling.decimal(scale) + " (quantities and yield)") }
        if let units { out.field("measures", Self.measuresLine(units)) }
        out.field("keywords", recipe.keywords)
        for (name, value) in Self.detailLines(recipe.details) { out.field(name, value) }
        out.field("nutrition", each: Self.nutritionLines(recipe.details.nutrition))
        if let image = recipe.image {
            out.field("image", "\(image.format.rawValue), \(image.byteCount) bytes, sha256 \(image.sha256)")
            if let path = imagePath(of: image) { out.line(FieldLines.indent + TerminalText.clean(path)) }
        } else {
            out.field("image", "none")
        }
        out.field("ingredients", content.ingredients.isEmpty ? "none" : "")
        out.ingredients(content.ingredients)
        out.field("steps", content.steps.isEmpty ? "none" : "")
        out.steps(content.steps)
        if !recipe.received.other.isEmpty {
            out.field("also kept", recipe.received.other.keys.sorted().joined(separator: ", "))
        }
        out.field("state", recipe.sync.effectiveState(at: now).rawValue)
        out.field("revision", "\(recipe.sync.revision) (on this device)")
        out.field("server", recipe.sync.serverVersion.map { versionWords($0).phrase } ?? "none yet")
        out.field("attempts", String(recipe.sync.attempts))
        if let next = recipe.sync.nextAttemptAt { out.field("next attempt", ISO8601.string(next)) }
        if let error = recipe.sync.lastError { out.field("last error", error) }
        if let remote = recipe.sync.remoteImageURL { out.field("server image", remote) }
        out.field("modified", ISO8601.string(recipe.dateModified))
        appendAttention(recipe, to: &out)
        return out.text
    }
}
