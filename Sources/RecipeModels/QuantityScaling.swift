import Foundation

/// Scales the quantities of a recipe's text: the number an ingredient line starts with and the yield's own number.
///
/// Read: integers (`2`), decimals (`1.5`, `1,5`), fractions (`1/2`, `½`, `1⁄2`), mixed numbers (`1 1/2`, `1½`) and
/// ranges of them (`2-3`, `2–3`, `2 to 3`). Written back in the style they came in: an integer or decimal as a decimal
/// (its comma kept), a fraction as the nearest half, third, quarter or eighth when one is that near, else a decimal.
/// Text that holds no quantity where one is looked for is left as written.
public enum QuantityScaling {
    /// The ingredient line with its leading quantity multiplied by `factor`; unchanged when it starts with none.
    public static func scale(ingredient line: String, by factor: Double) -> String {
        let start = line.firstIndex { !$0.isWhitespace } ?? line.endIndex
        guard let quantity = Quantity.read(line, at: start) else { return line }
        return line.replacingCharacters(in: quantity.range, with: quantity.scaled(by: factor))
    }

    /// The yield with its first quantity multiplied by `factor` (`Serves 4` → `Serves 8`); unchanged without one.
    public static func scale(yield text: String, by factor: Double) -> String {
        guard let quantity = firstQuantity(in: text) else { return text }
        return text.replacingCharacters(in: quantity.range, with: quantity.scaled(by: factor))
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
            /// An integer or a decimal, with its decimal separator.
            case decimal(separator: Character)
            /// A fraction or mixed number: ASCII (`1 1/2`) or with a vulgar fraction character (`1½`).
            case fraction(unicode: Bool)
        }

        /// The quantity as written after multiplying it by `factor`.
        func scaled(by factor: Double) -> String {
            let first = QuantityScaling.format(low * factor, style: style)
            guard let high else { return first }
            return first + high.separator + QuantityScaling.format(high.value * factor, style: style)
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
                    return (value, .decimal(separator: "."), fractionEnd)
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
        return (whole, .decimal(separator: "."), end)
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

    /// `value` written in `style`.
    static func format(_ value: Double, style: Quantity.Style) -> String {
        switch style {
        case .decimal(let separator):
            return decimal(value).replacingOccurrences(of: ".", with: String(separator))
        case .fraction(let unicode):
            let whole = value.rounded(.down)
            let part = value - whole
            if part < 0.01 { return decimal(whole) }
            if part > 0.99 { return decimal(whole + 1) }
            let fractions: [(Double, String, String)] = [
                (1.0 / 2, "1/2", "½"), (1.0 / 3, "1/3", "⅓"), (2.0 / 3, "2/3", "⅔"), (1.0 / 4, "1/4", "¼"),
                (3.0 / 4, "3/4", "¾"), (1.0 / 8, "1/8", "⅛"), (3.0 / 8, "3/8", "⅜"), (5.0 / 8, "5/8", "⅝"),
                (7.0 / 8, "7/8", "⅞"),
            ]
            guard let near = fractions.first(where: { abs($0.0 - part) < 0.01 }) else { return decimal(value) }
            if whole == 0 { return unicode ? near.2 : near.1 }
            return unicode ? decimal(whole) + near.2 : decimal(whole) + " " + near.1
        }
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
