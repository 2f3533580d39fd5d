import Foundation

/// The measures a cook reads a recipe in: metric (grams, millilitres, °C) or US customary (cups, spoons, ounces,
/// pounds, °F).
public enum UnitSystem: String, Sendable, CaseIterable {
    case metric
    case us
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
        add(["g", "gram", "grams", "gramme", "grammes"], .metric, .weight, 1)
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
        let (target, name) = Self.target(for: base.max() ?? 0, kind: unit.kind, system: system)
        let metric = QuantityWords.metric(after: Substring(" " + name))
        let style: QuantityScaling.Quantity.Style = metric == nil ? .fraction(unicode: true) : .whole
        let written = base.map { QuantityScaling.format($0 / target, style: style, metric: metric) }
        var text = written[0].text
        if let high = quantity.high, written.count > 1 { text += high.separator + written[1].text }
        let unitName = metric == nil && name == "cup" && (written.last?.value ?? 0) > 1 ? "cups" : name
        return String(line[..<quantity.range.lowerBound]) + text + " " + unitName + String(line[wordEnd...])
    }

    /// The unit of `system` an amount of `base` millilitres or grams is written in, and its size: spoons below a
    /// quarter cup, cups above; ounces below a pound; grams and millilitres below a thousand.
    static func target(for base: Double, kind: Unit.Kind, system: UnitSystem) -> (size: Double, name: String) {
        switch (system, kind) {
        case (.metric, .volume): base >= 1000 ? (1000, "l") : (1, "ml")
        case (.metric, .weight): base >= 1000 ? (1000, "kg") : (1, "g")
        case (.us, .volume):
            base < 14.7868 ? (4.92892, "tsp") : base < 59.147 ? (14.7868, "tbsp") : (236.588, "cup")
        case (.us, .weight): base >= 453.592 ? (453.592, "lb") : (28.3495, "oz")
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
