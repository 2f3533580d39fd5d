import Foundation

/// Which ingredients each step of a recipe uses: the ingredients a step mentions by their food words
/// ("2 cloves garlic, minced" is used by "add the garlic"), what `recipes cook` shows under a step.
///
/// An ingredient's food words are its words without the quantity, the units, the words of how it is prepared or
/// bought (`fresh`, `chopped`, `finely`, `large`), what is in parentheses, and the parts after a comma that say how to
/// prepare it (`, minced`, `, to taste`, `, cut into wedges`); "salt and pepper", "walnuts, pecans or almonds" and
/// "juice of 1 lemon" name several things, each its own name. Words are compared folded: case and accents aside, the
/// singular and the plural as one (`tomatoes` is `tomato`, `berries` is `berry`, `leaves` is `leaf`).
///
/// A step uses an ingredient when it says the name's last word (its head: the `oil` of `olive oil`), unless the word
/// before it there is another ingredient's word for the same head and not this one's ("the sesame oil" is not the
/// olive oil). When the head is a part of what the name's other words say (`chicken thighs`, `egg yolks`), a step
/// saying one of those words uses it too ("brown the chicken"), unless the word is another ingredient's head or is
/// followed by another ingredient's word ("the chicken stock" is not the thighs).
/// Ingredient section headings (`IngredientSections`) name nothing.
public enum StepIngredients {
    /// For each of `steps` (their texts), the indices into `ingredients` of those it uses, in the ingredients' order.
    public static func uses(ingredients: [String], steps: [String]) -> [[Int]] {
        let headings = Set(IngredientSections.headingIndices(ingredients))
        let names = ingredients.enumerated().map { index, line in headings.contains(index) ? [] : foodNames(of: line) }
        let heads = names.map { Set($0.compactMap(\.last)) }
        // Every food word of each ingredient, to know whose a word in a step is.
        let wordsOf = names.map { Set($0.flatMap { $0 }) }
        return steps.map { step in
            let tokens = words(in: step).map(stem)
            return names.indices.filter { index in
                names[index].contains { name in
                    mentions(name, of: index, in: tokens, heads: heads, wordsOf: wordsOf)
                }
            }
        }
    }

    /// Whether `tokens` (a step's stemmed words) mention `name` (one name of ingredient `owner`), by the rules above.
    static func mentions(_ name: [String], of owner: Int, in tokens: [String], heads: [Set<String>], wordsOf: [Set<String>]) -> Bool {
        guard let head = name.last else { return false }
        let others = wordsOf.indices.filter { $0 != owner }
        for (position, token) in tokens.enumerated() where name.contains(token) {
            let before = position > 0 ? tokens[position - 1] : nil
            let after = position + 1 < tokens.count ? tokens[position + 1] : nil
            if token == head {
                // The word before names another ingredient with this head, and is none of this name's words.
                if let before, !name.contains(before),
                   others.contains(where: { heads[$0].contains(head) && wordsOf[$0].contains(before) }) {
                    continue
                }
                return true
            }
            // Another word of the name, when the head is a part of it (the chicken of chicken thighs, not of chicken
            // stock): it must be no other ingredient's head, and not start another's name.
            guard parts.contains(head) else { continue }
            if others.contains(where: { heads[$0].contains(token) }) { continue }
            if let after, !name.contains(after), others.contains(where: { wordsOf[$0].contains(after) }) { continue }
            return true
        }
        return false
    }

    /// The names an ingredient line holds, each as its food words (folded and in the singular), the head last:
    /// "2 cloves garlic, minced" is `[["garlic"]]`, "Salt and freshly ground black pepper" `[["salt"], ["black",
    /// "pepper"]]`; empty for a line that names nothing.
    public static func foodNames(of line: String) -> [[String]] {
        let parts = withoutParentheses(line).split(separator: ",", omittingEmptySubsequences: true)
        var names: [[String]] = []
        for (index, part) in parts.enumerated() {
            let partWords = words(in: String(part))
            // After the first part, a part saying how to prepare or serve it names nothing.
            if index > 0, let first = partWords.first,
               preparation.contains(first) || partWords.contains(where: { isPreparation($0) }) {
                continue
            }
            var current: [String] = []
            for word in partWords {
                if joining.contains(word) {
                    if !current.isEmpty { names.append(current) }
                    current = []
                } else if !isIgnored(word) {
                    current.append(stem(word))
                }
            }
            if !current.isEmpty { names.append(current) }
        }
        return names
    }

    /// `text` without what is in parentheses (`(14.5 ounce)`, `(optional)`).
    static func withoutParentheses(_ text: String) -> String {
        var result = ""
        var depth = 0
        for character in text {
            if character == "(" { depth += 1 } else if character == ")" { depth = max(0, depth - 1) } else if depth == 0 {
                result.append(character)
            }
        }
        return result
    }

    /// The words of `text`: its runs of letters, case and accents folded (`Crème` is `creme`); digits and
    /// punctuation separate them.
    static func words(in text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .lowercased()
        return folded.split { !$0.isLetter }.map(String.init)
    }

    /// The form singular and plural share: `tomatoes` and `tomato` are `tomato`, `berries` and `berry` `berri`,
    /// `cookies` and `cookie` `cooki`, `leaves` and `leaf` `leaf`; words of three letters or fewer as they are.
    public static func stem(_ word: String) -> String {
        if let singular = irregular[word] { return singular }
        guard word.count > 3 else { return word }
        var stem = Substring(word)
        if stem.hasSuffix("ies") {
            stem = stem.dropLast(3) + "i"
        } else if stem.hasSuffix("oes") || stem.hasSuffix("ches") || stem.hasSuffix("shes") || stem.hasSuffix("sses")
                    || stem.hasSuffix("xes") {
            stem = stem.dropLast(2)
        } else if stem.hasSuffix("s"), !stem.hasSuffix("ss"), !stem.hasSuffix("us") {
            stem = stem.dropLast()
        }
        if stem.hasSuffix("y") { stem = stem.dropLast() + "i" } else if stem.hasSuffix("ie") { stem = stem.dropLast() }
        return String(stem)
    }

    /// The heads of names that are a part of what the words before them name (chicken thighs, egg yolks, basil
    /// leaves), as `stem` writes them: a step naming the whole (the chicken) uses them too.
    static let parts: Set<String> = [
        "breast", "thigh", "leg", "wing", "drumstick", "fillet", "loin", "chop", "steak", "cutlet", "yolk", "white",
        "leaf", "sprig", "stalk", "floret", "wedge", "segment", "piece", "cube", "strip", "shank", "rib",
    ]

    /// Plurals the rules do not make singular.
    static let irregular: [String: String] = [
        "leaves": "leaf", "loaves": "loaf", "halves": "half", "knives": "knife", "calves": "calf", "geese": "goose",
    ]

    /// Words that join two names in one line ("salt and pepper", "walnuts or pecans", "juice of 1 lemon").
    static let joining: Set<String> = ["and", "or", "of", "plus", "with", "nor"]

    /// Whether `word` says nothing of what the food is: a unit, a quantity's word, how it is prepared or bought, or a
    /// word of one letter (`g`, `l`).
    static func isIgnored(_ word: String) -> Bool {
        word.count < 2 || units.contains(word) || descriptive.contains(word) || preparation.contains(word)
            || isPreparation(word)
    }

    /// A word of how a thing is prepared, by its form: a participle of five letters or more (`minced`, `crushed`;
    /// not `red` or `seed`) or an adverb of six or more (`finely`; not `jelly`).
    static func isPreparation(_ word: String) -> Bool {
        (word.count >= 5 && word.hasSuffix("ed") && !word.hasSuffix("eed")) || (word.count >= 6 && word.hasSuffix("ly"))
    }

    /// The units an ingredient is measured in (`UnitConversion`'s and `QuantityWords`' words, and their short forms).
    static let units: Set<String> = {
        var units = Set(UnitConversion.units.keys)
        for pair in QuantityWords.units { units.insert(pair.singular); units.insert(pair.plural) }
        units.formUnion(["tbs", "tbsp", "tbsps", "tsp", "tsps", "oz", "lb", "lbs", "fl", "qt", "pt", "gal", "cm", "mm",
                         "inch", "inches", "dessertspoon", "dessertspoons", "punnet", "punnets", "carton", "cartons",
                         "envelope", "envelopes", "container", "containers", "thumb", "glass", "glasses", "splash"])
        return units
    }()

    /// Words of how much, what size, what state or what for: never a food's name.
    static let descriptive: Set<String> = [
        "a", "an", "the", "some", "about", "approx", "approximately", "few", "more", "extra", "additional", "optional",
        "large", "small", "medium", "big", "heaped", "heaping", "level", "rounded", "scant", "generous", "whole", "fresh",
        "ripe", "thin", "thick", "good", "quality", "sized", "virgin", "all", "purpose", "plain", "cold", "warm", "hot",
        "room", "temperature", "to", "taste", "for", "serving", "serve", "garnish", "dusting", "frying", "greasing",
        "into", "in", "at", "on", "as", "if", "needed", "you", "like", "your", "favourite", "favorite", "store", "bought",
        "homemade", "ground", "dry", "raw", "cooked", "lean", "free", "range", "organic", "boneless", "skinless",
        "unsalted", "salted", "softened", "melted", "beaten", "packed", "sifted", "halved", "quartered", "cubed",
        "torn", "toasted", "peeled", "seeded", "deseeded", "trimmed", "rinsed", "drained", "divided", "separated",
        "finely", "roughly", "coarsely", "thinly", "freshly", "lightly", "well", "very", "such", "other", "each",
        "per", "half", "quarter", "third", "zested", "juiced", "pitted", "stoned", "cored", "minced", "diced", "sliced",
        "chopped", "grated", "crushed", "shredded", "mashed", "pureed", "dried", "frozen", "thawed", "canned", "tinned",
    ]

    /// Words that start a part of how to prepare or serve (`, cut into wedges`, `, to taste`, `, for dusting`).
    static let preparation: Set<String> = [
        "cut", "chop", "mince", "dice", "slice", "grate", "crush", "peel", "to", "for", "at", "about", "if", "such",
        "as", "torn", "roughly", "finely", "thinly", "into", "in", "cubed", "halved", "quartered", "room",
    ]
}
