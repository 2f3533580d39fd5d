import Foundation

/// The words after a scaled quantity, as a cook writes them: which measure it is in (a metric one is weighed or
/// measured to a round number, anything else is measured in fractions), and the singular or plural of the unit or
/// noun that follows (`¾ cup`, `1½ cups`, `1 egg`, `2 cans`). Only words in the tables are changed: a word they do
/// not know is left as written.
enum QuantityWords {
    /// A metric unit: how finely its amounts are written.
    enum Metric: Equatable {
        /// Grams, millilitres, milligrams: a whole number from 10 up, one decimal below.
        case fine
        /// Kilograms, litres, decilitres, centilitres: as decimals are written (to the hundredth below 10).
        case coarse
    }

    /// The metric unit the text right after a quantity starts with (`g`, `400g`'s `g`, ` ml`, ` litres`), if any: one
    /// of `UnitConversion.units`.
    static func metric(after text: Substring) -> Metric? {
        UnitConversion.units[firstWord(of: text.drop { $0 == " " }).lowercased()]?.metric
    }

    /// Words a quantity may stand before without being what is counted (`2 large eggs`).
    static let modifiers: Set<String> = [
        "large", "small", "medium", "big", "heaped", "heaping", "level", "rounded", "scant", "generous", "whole",
        "fresh", "ripe", "thin", "thick", "good", "medium-sized", "large-sized", "extra-large",
    ]

    /// Singular and plural of the units a recipe measures in: always the word counted (`2 cups flour`).
    static let units: [(singular: String, plural: String)] = [
        "cup", "tablespoon", "teaspoon", "clove", "can", "tin", "jar", "packet", "package", "bag", "bottle", "slice",
        "stick", "sprig", "handful", "piece", "pound", "ounce", "quart", "pint", "gallon", "head", "stalk", "rib",
        "fillet", "sheet", "drop", "cube", "strip", "knob", "spoonful", "cupful", "scoop", "serving", "portion", "rasher",
    ].map { ($0, $0 + "s") } + [
        ("leaf", "leaves"), ("loaf", "loaves"), ("bunch", "bunches"), ("pinch", "pinches"), ("dash", "dashes"),
        ("box", "boxes"), ("half", "halves"),
    ]

    /// Singular and plural of the things a recipe counts. In the singular such a word may name what another is made
    /// of (`2 egg yolks`, `10 cherry tomatoes`, `1 lemon juice`): it is the word counted only at the end of the line or
    /// before punctuation (`1 onion, chopped`); in the plural it always is.
    static let nouns: [(singular: String, plural: String)] = [
        "egg", "onion", "shallot", "carrot", "lemon", "lime", "orange", "apple", "banana", "pear", "cucumber",
        "courgette", "aubergine", "leek", "avocado", "pepper", "chile", "tortilla", "bun", "roll", "cookie", "muffin",
        "yolk", "breast", "thigh", "drumstick", "steak", "chop", "sausage", "biscuit", "cake", "pie", "fig", "date",
        "plum", "apricot", "olive", "clementine", "white",
    ].map { ($0, $0 + "s") } + [
        ("potato", "potatoes"), ("tomato", "tomatoes"), ("peach", "peaches"), ("radish", "radishes"),
        ("chilli", "chillies"), ("chili", "chilies"), ("anchovy", "anchovies"), ("berry", "berries"),
        ("cherry", "cherries"),
    ]

    /// `rest` (the text after a scaled quantity) with the unit or noun it counts in the singular when the quantity is
    /// `one` or less, else in the plural: the first word, or the first after a parenthesis (`1 (14.5 ounce) can`), a
    /// modifier (`2 large eggs`) or a thing's name (`2 egg yolks`). Its case and what follows it are kept.
    static func inflected(_ rest: Substring, one: Bool) -> String {
        var index = rest.startIndex
        func skipSpaces() { while index < rest.endIndex, rest[index] == " " { index = rest.index(after: index) } }
        skipSpaces()
        if index < rest.endIndex, rest[index] == "(", let close = rest[index...].firstIndex(of: ")") {
            index = rest.index(after: close)
            skipSpaces()
        }
        for _ in 0..<3 {
            let word = firstWord(of: rest[index...])
            guard !word.isEmpty else { return String(rest) }
            let end = rest.index(index, offsetBy: word.count)
            let following = rest[end...].first
            let alone = following == nil || following.map { ",;:.()".contains($0) } == true
            // A modifier, or a thing's name before what is made of it (`egg` of `2 egg yolks`): the next word counts.
            if modifiers.contains(word.lowercased()) || (!alone && nouns.contains { $0.singular == word.lowercased() }) {
                index = end
                skipSpaces()
                continue
            }
            guard let replaced = form(of: word, one: one, alone: alone) else { return String(rest) }
            return String(rest[..<index]) + replaced + String(rest[end...])
        }
        return String(rest)
    }

    /// `word` in the singular (`one`) or plural, its first letter's case kept; nil for a word the tables lack, or a
    /// noun in the singular not `alone` (at the end, or before punctuation), which may name what another is made of.
    static func form(of word: String, one: Bool, alone: Bool) -> String? {
        let lower = word.lowercased()
        let noun = nouns.first { $0.plural == lower || (alone && $0.singular == lower) }
        guard let pair = units.first(where: { $0.singular == lower || $0.plural == lower }) ?? noun else { return nil }
        let wanted = one ? pair.singular : pair.plural
        guard let first = word.first, first.isUppercase else { return wanted }
        return wanted.prefix(1).uppercased() + wanted.dropFirst()
    }

    /// The letters (and hyphens) `text` starts with.
    static func firstWord(of text: Substring) -> String {
        String(text.prefix { $0.isLetter || $0 == "-" })
    }
}
