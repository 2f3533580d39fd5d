import Foundation

/// The sections of a recipe's ingredient list. A recipe keeps its ingredients as lines; a line that is a heading
/// ("For the sauce:", "Topping:") — one that ends with a colon and starts with no quantity — starts a section of the
/// lines below it, as recipe pages and cards write them.
public struct IngredientSections: Sendable, Equatable {
    /// One section: its name (empty for the lines before any heading) and the indices of its ingredient lines.
    public struct Section: Sendable, Equatable {
        /// The heading without its colon; empty before the first heading.
        public var name: String
        /// The indices of the section's ingredients in the recipe's list.
        public var ingredients: [Int]

        /// Creates a section.
        public init(name: String, ingredients: [Int]) {
            self.name = name
            self.ingredients = ingredients
        }
    }

    /// The sections in order; a list without headings is one section named "".
    public var sections: [Section]

    /// The sections of `lines` (a recipe's ingredients). A first section without lines is left out.
    public init(_ lines: [String]) {
        var sections: [Section] = [Section(name: "", ingredients: [])]
        let headings = Set(Self.headingIndices(lines))
        for (index, line) in lines.enumerated() {
            if headings.contains(index) {
                if sections.count == 1, sections[0].name.isEmpty, sections[0].ingredients.isEmpty { sections.removeAll() }
                sections.append(Section(name: Self.headingName(line), ingredients: []))
            } else {
                sections[sections.count - 1].ingredients.append(index)
            }
        }
        self.sections = sections
    }

    /// The indices of the lines of `lines` that are headings.
    public static func headingIndices(_ lines: [String]) -> [Int] {
        lines.indices.filter { isHeading(lines[$0]) }
    }

    /// Whether `line` is a heading: it ends with a colon, has a letter, and starts with no quantity.
    public static func isHeading(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix(":"), trimmed.contains(where: \.isLetter) else { return false }
        return QuantityScaling.Quantity.read(trimmed, at: trimmed.startIndex) == nil
    }

    /// The name of heading `line`: without its colon and the blanks around it.
    static func headingName(_ line: String) -> String {
        String(line.trimmingCharacters(in: .whitespaces).dropLast()).trimmingCharacters(in: .whitespaces)
    }
}
