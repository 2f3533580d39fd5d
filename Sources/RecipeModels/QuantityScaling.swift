import Foundation

/// Scales the quantities of a recipe's text: the number an ingredient line starts with and the yield's own number.
///
/// Read: integers (`2`), decimals (`1.5`, `1,5`), fractions (`1/2`, `½`, `1⁄2`), mixed numbers (`1 1/2`, `1½`) and
/// ranges of them (`2-3`, `2–3`, `2 to 3`). Written back as a cook writes them:
/// - in a metric unit (`g`, `ml`, `kg`, `l`, …) as a decimal (its comma kept): whole grams and millilitres from 10
///   up, one decimal below; kilograms and litres to the hundredth below 10;
/// - a decimal in any other unit as a decimal;
/// - an integer or a fraction in any other unit (cups, spoons, cans, eggs) as the nearest eighth or third, a mixed
///   number from 1 (`1½`), the nearest half from 10; with the vulgar fraction characters (`½ ⅓ ¼ ⅔ ¾ ⅛`) unless
///   the line wrote its fraction in ASCII (`1/2`); a decimal for less than a sixteenth, which no spoon measures;
/// - the unit or noun counted after it in the singular for one or less, else the plural (`¾ cup`, `1½ cups`,
///   `1 egg`; `QuantityWords`).
/// Text that holds no quantity where one is looked for is left as written.
public enum QuantityScaling {
    /// The ingredient line with its leading quantity multiplied by `factor`; unchanged when it starts with none.
    public static func scale(ingredient line: String, by factor: Double) -> String {
        let start = line.firstIndex { !$0.isWhitespace } ?? line.endIndex
        guard let quantity = Quantity.read(line, at: start) else { return line }
        return quantity.replaced(in: line, by: factor)
    }

    /// The yield with its first quantity multiplied by `factor` (`Serves 4` → `Serves 8`); unchanged without one.
    public static func scale(yield text: String, by factor: Double) -> String {
        guard let quantity = firstQuantity(in: text) else { return text }
        return quantity.replaced(in: text, by: factor)
    }

    /// How many the yield makes: its first quantity (the lower end of a range), or nil when it has none.
    public static func servings(in yield: String) -> Double? {
        firstQuantity(in: yield).map(\.low)
    }

    /// The first quantity of `text` that starts a word.
    static func firstQuantity(in text: String) -> Quantity? {
        var index = text.startIndex
        while index < text.endIndex {
            let startsWord = index == text.startIndex || !text[text.index(before: index)].isLetter
            if startsWord, let quantity = Quantity.read(text, at: index) { return quantity }
            index = text.index(after: index)
        }
        return nil
    }

    /// A number or a range of two, where it is in its text and how it was written.
    struct Quantity {
        /// Where the quantity is.
        var range: Range<String.Index>
        /// The number, or the lower end of the range.
        var low: Double
        /// The upper end of the range, with what separated the two as written (`-`, ` to `).
        var high: (value: Double, separator: String)?
        /// How the number was written.
        var style: Style

        /// How a number was written, which is how its scaled value is written.
        enum Style: Equatable {
            /// An integer (`2`, `1,000`).
            case whole
            /// A decimal, with its decimal separator.
            case decimal(separator: Character)
            /// A fraction or mixed number: ASCII (`1 1/2`) or with a vulgar fraction character (`1½`).
            case fraction(unicode: Bool)
        }

        /// `text` (which the quantity is in) with the quantity multiplied by `factor`, and the unit or noun after it
        /// in the singular or plural that the new amount takes.
        func replaced(in text: String, by factor: Double) -> String {
            let after = text[range.upperBound...]
            let metric = QuantityWords.metric(after: after)
            let first = QuantityScaling.format(low * factor, style: style, metric: metric)
            var written = first.text
            var largest = first.value
            if let high {
                let second = QuantityScaling.format(high.value * factor, style: style, metric: metric)
                written += high.separator + second.text
                largest = second.value
            }
            let rest = metric == nil ? QuantityWords.inflected(after, one: largest <= 1) : String(after)
            return String(text[..<range.lowerBound]) + written + rest
        }

        /// The quantity that starts at `start` of `text`, if one does.
        static func read(_ text: String, at start: String.Index) -> Quantity? {
            guard let (low, style, end) = QuantityScaling.number(in: text, at: start) else { return nil }
            var quantity = Quantity(range: start..<end, low: low, high: nil, style: style)
            for separator in ["-", "–", "—", " - ", " – ", " to ", " or "] {
                guard text[end...].hasPrefix(separator) else { continue }
                let next = text.index(end, offsetBy: separator.count)
                guard let (high, _, highEnd) = QuantityScaling.number(in: text, at: next), high > low else { continue }
                quantity.high = (high, separator)
                quantity.range = start..<highEnd
                break
            }
            return quantity
        }
    }

    /// The vulgar fraction characters and their values.
    static let vulgarFractions: [Character: Double] = [
        "½": 1.0 / 2, "⅓": 1.0 / 3, "⅔": 2.0 / 3, "¼": 1.0 / 4, "¾": 3.0 / 4, "⅕": 1.0 / 5, "⅖": 2.0 / 5, "⅗": 3.0 / 5,
        "⅘": 4.0 / 5, "⅙": 1.0 / 6, "⅚": 5.0 / 6, "⅛": 1.0 / 8, "⅜": 3.0 / 8, "⅝": 5.0 / 8, "⅞": 7.0 / 8,
    ]

    /// The number starting at `start`: its value, how it was written and where it ends; nil when none starts there or
    /// it runs straight into a letter-less symbol that makes it something else (`1/0`, `3.`).
    static func number(in text: String, at start: String.Index) -> (Double, Quantity.Style, String.Index)? {
        if start < text.endIndex, let value = vulgarFractions[text[start]] {
            return (value, .fraction(unicode: true), text.index(after: start))
        }
        guard let (whole, wholeEnd) = digits(in: text, at: start) else { return nil }
        var end = wholeEnd
        // A fraction: 1/2 or 1⁄2.
        if end < text.endIndex, text[end] == "/" || text[end] == "\u{2044}" {
            let after = text.index(after: end)
            guard let (denominator, denominatorEnd) = digits(in: text, at: after), denominator > 0 else { return nil }
            return (whole / denominator, .fraction(unicode: false), denominatorEnd)
        }
        // A decimal: 1.5, or 1,5 (a comma before exactly three digits is a thousands separator: 1,000).
        if end < text.endIndex, text[end] == "." || text[end] == "," {
            let separator = text[end]
            let after = text.index(after: end)
            if let (_, fractionEnd) = digits(in: text, at: after) {
                let count = text.distance(from: after, to: fractionEnd)
                let digitsText = String(text[after..<fractionEnd])
                if separator == "," && count == 3 {
                    guard let value = Double(String(text[start..<wholeEnd]) + digitsText) else { return nil }
                    return (value, .whole, fractionEnd)
                }
                guard let value = Double(String(text[start..<wholeEnd]) + "." + digitsText) else { return nil }
                return (value, .decimal(separator: separator), fractionEnd)
            }
        }
        // A mixed number: 1½, 1 ½, 1 1/2.
        if end < text.endIndex, let fraction = vulgarFractions[text[end]] {
            return (whole + fraction, .fraction(unicode: true), text.index(after: end))
        }
        if end < text.endIndex, text[end] == " " {
            let after = text.index(after: end)
            if after < text.endIndex, let fraction = vulgarFractions[text[after]] {
                return (whole + fraction, .fraction(unicode: true), text.index(after: after))
            }
            if let (numerator, numeratorEnd) = digits(in: text, at: after), numeratorEnd < text.endIndex,
               text[numeratorEnd] == "/" || text[numeratorEnd] == "\u{2044}",
               let (denominator, denominatorEnd) = digits(in: text, at: text.index(after: numeratorEnd)),
               denominator > 0, numerator < denominator {
                return (whole + numerator / denominator, .fraction(unicode: false), denominatorEnd)
            }
        }
        end = wholeEnd
        return (whole, .whole, end)
    }

    /// The ASCII digits starting at `start` as a number, and where they end.
    static func digits(in text: String, at start: String.Index) -> (Double, String.Index)? {
        var end = start
        while end < text.endIndex, text[end].isASCII, text[end].isNumber { end = text.index(after: end) }
        guard end > start, text.distance(from: start, to: end) <= 9, let value = Double(String(text[start..<end])) else {
            return nil
        }
        return (value, end)
    }

    /// `value` written in `style` before a `metric` unit (nil: any other), and the value as written.
    static func format(_ value: Double, style: Quantity.Style, metric: QuantityWords.Metric?) -> (text: String, value: Double) {
        let separator: Character = if case .decimal(let separator) = style { separator } else { "." }
        func decimalText(_ value: Double) -> (text: String, value: Double) {
            let text = decimal(value)
            return (text.replacingOccurrences(of: ".", with: String(separator)), Double(text) ?? value)
        }
        switch (metric, style) {
        case (.fine?, _):
            return decimalText(value >= 10 ? value.rounded() : (value * 10).rounded() / 10)
        case (.coarse?, _), (nil, .decimal):
            return decimalText(value)
        case (nil, .whole):
            return fraction(value, unicode: true) ?? decimalText(value)
        case (nil, .fraction(let unicode)):
            return fraction(value, unicode: unicode) ?? decimalText(value)
        }
    }

    /// The fractions a cook measures, by value: eighths and thirds.
    static let measuredFractions: [(value: Double, ascii: String, unicode: String)] = [
        (1.0 / 8, "1/8", "⅛"), (1.0 / 4, "1/4", "¼"), (1.0 / 3, "1/3", "⅓"), (3.0 / 8, "3/8", "⅜"), (1.0 / 2, "1/2", "½"),
        (5.0 / 8, "5/8", "⅝"), (2.0 / 3, "2/3", "⅔"), (3.0 / 4, "3/4", "¾"), (7.0 / 8, "7/8", "⅞"),
    ]

    /// `value` as the nearest fraction a cook measures (halves only from 10), a mixed number from 1; nil for less
    /// than a sixteenth (no spoon measures it: written as a decimal) or a value too large to be a whole `Int64`.
    static func fraction(_ value: Double, unicode: Bool) -> (text: String, value: Double)? {
        guard value >= 1.0 / 16, value < 1e15 else { return nil }
        var whole = value.rounded(.down)
        let part = value - whole
        let candidates = [(value: 0.0, ascii: "", unicode: "")]
            + (value >= 10 ? measuredFractions.filter { $0.value == 0.5 } : measuredFractions)
            + [(value: 1.0, ascii: "", unicode: "")]
        // The nearest; of two as near, the larger.
        var nearest = candidates[0]
        for candidate in candidates where abs(candidate.value - part) <= abs(nearest.value - part) { nearest = candidate }
        if nearest.value == 1 { whole += 1 }
        let wholeText = whole > 0 ? String(Int64(whole)) : ""
        let fractionText = unicode ? nearest.unicode : nearest.ascii
        let separator = !unicode && !wholeText.isEmpty && !fractionText.isEmpty ? " " : ""
        let amount = whole + (nearest.value == 1 ? 0 : nearest.value)
        return (wholeText + separator + fractionText, amount)
    }

    /// A decimal as a cook reads it: to the hundredth below 10, the tenth below 100, else whole; no trailing zeros.
    /// Any value is written, however large (one beyond a whole `Int64` as its digits, not a crash).
    public static func decimal(_ value: Double) -> String {
        let places = value < 10 ? 2 : value < 100 ? 1 : 0
        let scale = pow(10, Double(places))
        let rounded = (value * scale).rounded() / scale
        guard rounded.isFinite, abs(rounded) < 1e15 else { return String(format: "%.0f", rounded) }
        if rounded == rounded.rounded() { return String(Int64(rounded)) }
        var text = String(format: "%.\(places)f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
