import Foundation

/// The measures a cook reads a recipe in: metric (grams, millilitres, °C) or US customary (cups, spoons, ounces,
/// pounds, °F).
public enum UnitSystem: String, Sendable, CaseIterable {
    case metric
    case us
}

extension RecipeContent {
    /// The content as a cook is shown it (`show`, `export`): its quantities and yield scaled by `factor`, then its
    /// measures in `units`; each left as kept when nil.
    public func shown(scaledBy factor: Double?, in units: UnitSystem?) -> RecipeContent {
        var content = self
        if let factor { content = QuantityScaling.scaled(content, by: factor) }
        if let units { content = UnitConversion.converted(content, to: units) }
        return content
    }
}

/// A recipe's quantities in the other system of measures, where that is sound: a volume to a volume and a weight to a
/// weight (a cup of flour becomes 237 ml, not grams: that needs the flour's density, which a recipe does not give), and
/// oven temperatures in the steps. The unit after an ingredient's leading quantity decides (`1 cup flour` →
/// `240 ml flour`, `8 oz cream cheese` → `225 g cream cheese`); the amount is written as `QuantityScaling` writes a
/// scaled one (whole grams and millilitres from 10 up, cups and spoons in eighths and thirds). Temperatures: a
/// number before `°C`/`°F` (or `ºC`, `degrees C`), °F to the nearest 5 °C, °C to the nearest 25 °F as ovens are
/// marked (180 °C → 350 °F).
public enum UnitConversion {
    /// A unit the conversion knows: its system, what it measures, and its size in millilitres or grams.
    struct Unit {
        enum Kind { case volume, weight }
        let system: UnitSystem
        let kind: Kind
        /// Millilitres (volume) or grams (weight) in one.
        let size: Double

        /// How finely an amount of a metric unit is written (grams and millilitres and less finely, kilograms and
        /// litres and the other larger ones as decimals); nil for a US unit, written in fractions.
        var metric: QuantityWords.Metric? {
            guard system == .metric else { return nil }
            return size <= 1 ? .fine : .coarse
        }
    }

    /// The units by the words an ingredient writes them with.
    static let units: [String: Unit] = {
        var units: [String: Unit] = [:]
        func add(_ words: [String], _ system: UnitSystem, _ kind: Unit.Kind, _ size: Double) {
            for word in words { units[word] = Unit(system: system, kind: kind, size: size) }
        }
        add(["ml", "millilitre", "millilitres", "milliliter", "milliliters"], .metric, .volume, 1)
        add(["cl"], .metric, .volume, 10)
        add(["dl"], .metric, .volume, 100)
        add(["l", "litre", "litres", "liter", "liters"], .metric, .volume, 1000)
        add(["mg"], .metric, .weight, 0.001)
        add(["g", "gr", "gram", "grams", "gramme", "grammes"], .metric, .weight, 1)
        add(["kg", "kilo", "kilos", "kilogram", "kilograms"], .metric, .weight, 1000)
        add(["tsp", "teaspoon", "teaspoons"], .us, .volume, 4.92892)
        add(["tbsp", "tablespoon", "tablespoons"], .us, .volume, 14.7868)
        add(["cup", "cups"], .us, .volume, 236.588)
        add(["pint", "pints"], .us, .volume, 473.176)
        add(["quart", "quarts"], .us, .volume, 946.353)
        add(["oz", "ounce", "ounces"], .us, .weight, 28.3495)
        add(["lb", "lbs", "pound", "pounds"], .us, .weight, 453.592)
        return units
    }()

    /// `content` with its ingredients' quantities and its steps' oven temperatures in `system`.
    public static func converted(_ content: RecipeContent, to system: UnitSystem) -> RecipeContent {
        var converted = content
        converted.ingredients = content.ingredients.map { convert(ingredient: $0, to: system) }
        converted.steps = content.steps.map { Step(text: convert(temperatures: $0.text, to: system), section: $0.section) }
        return converted
    }

    /// `line` (an ingredient) with its leading quantity and unit in `system`; unchanged when it has no quantity, no
    /// unit the conversion knows, or is in `system` already.
    public static func convert(ingredient line: String, to system: UnitSystem) -> String {
        let start = line.firstIndex { !$0.isWhitespace } ?? line.endIndex
        guard let quantity = QuantityScaling.Quantity.read(line, at: start) else { return line }
        let after = line[quantity.range.upperBound...]
        let spaces = after.prefix { $0 == " " }
        let word = QuantityWords.firstWord(of: after.dropFirst(spaces.count))
        let wordEnd = after.index(after.startIndex, offsetBy: spaces.count + word.count)
        guard let unit = units[word.lowercased()], unit.system != system else { return line }
        let amounts = [quantity.low] + (quantity.high.map { [$0.value] } ?? [])
        let base = amounts.map { $0 * unit.size }
        let name = Self.target(for: base.max() ?? 0, kind: unit.kind, system: system)
        guard let target = units[name] else { return line }
        let style: QuantityScaling.Quantity.Style = target.metric == nil ? .fraction(unicode: true) : .whole
        let written = base.map { QuantityScaling.format($0 / target.size, style: style, metric: target.metric) }
        var text = written[0].text
        if let high = quantity.high, written.count > 1 { text += high.separator + written[1].text }
        let unitName = QuantityWords.form(of: name, one: (written.last?.value ?? 0) <= 1, alone: true) ?? name
        return String(line[..<quantity.range.lowerBound]) + text + " " + unitName + String(line[wordEnd...])
    }

    /// The unit (its word in `units`) of `system` an amount of `base` millilitres or grams is written in: spoons
    /// below a quarter cup, cups above; ounces below a pound; grams and millilitres below a thousand.
    static func target(for base: Double, kind: Unit.Kind, system: UnitSystem) -> String {
        switch (system, kind) {
        case (.metric, .volume): base >= 1000 ? "l" : "ml"
        case (.metric, .weight): base >= 1000 ? "kg" : "g"
        case (.us, .volume): base < (units["tbsp"]?.size ?? 0) ? "tsp" : base < (units["cup"]?.size ?? 0) / 4 ? "tbsp" : "cup"
        case (.us, .weight): base >= (units["lb"]?.size ?? 0) ? "lb" : "oz"
        }
    }

    /// `text` (a step) with each oven temperature in `system`: `180 °C` → `350 °F`, `350°F` → `175°C`.
    public static func convert(temperatures text: String, to system: UnitSystem) -> String {
        let pattern = #"(\d{2,3})(\s?)(°|º|degrees\s)([CF])\b"#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return text }
        var result = ""
        var rest = text.startIndex
        for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let whole = Range(match.range, in: text), let numberRange = Range(match.range(at: 1), in: text),
                  let spaceRange = Range(match.range(at: 2), in: text), let signRange = Range(match.range(at: 3), in: text),
                  let scaleRange = Range(match.range(at: 4), in: text), let degrees = Double(text[numberRange])
            else { continue }
            let celsius = text[scaleRange] == "C"
            guard celsius == (system == .us) else { continue }
            let converted = celsius ? ((degrees * 9 / 5 + 32) / 25).rounded() * 25 : (((degrees - 32) * 5 / 9) / 5).rounded() * 5
            result += text[rest..<whole.lowerBound]
            result += String(Int(converted)) + text[spaceRange] + text[signRange] + (celsius ? "F" : "C")
            rest = whole.upperBound
        }
        result += text[rest...]
        return result
    }
}
