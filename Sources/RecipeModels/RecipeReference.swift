/// How a person names a recipe: by its id, the small number `list` shows on this device, by its uuid, whole or
/// a prefix of it, which is the same on every device (the pancakes may be 1 on the laptop and 3 on the tablet, but
/// they are `3f2a91c0` on both), or by its title or the start of it, in any case and accent (`TitleMatch`).
///
/// A word of digits only is an id or a uuid start, never a title; a word of hexadecimal digits with a letter among
/// them (`beef`, `3f2a91c0`) is a uuid start and a title start at once, refused when both name recipes; any other
/// word is a title.
public enum RecipeReference: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// A local id (a word of 1 to 3 digits, the first not 0).
    case id(Int64)
    /// A word of 4 or more digits, the first not 0: an id when a recipe has it, the start of a uuid when one starts
    /// so (eight hexadecimal digits that happen to be decimal ones are a uuid prefix as `status` shows it); both at
    /// once is ambiguous.
    case idOrUUID(Int64, prefix: String)
    /// The start of a uuid, lower-case hexadecimal digits without dashes (at least 4 of them).
    case uuid(prefix: String)
    /// A word of 4 to 32 hexadecimal digits (dashes anywhere) with a letter among them: the start of a uuid when one
    /// starts so, a title or the start of one when one is or starts so (`name` is the word as given); both at once
    /// is ambiguous.
    case uuidOrTitle(prefix: String, name: String)
    /// A title or the start of one, as given (matched in any case and accent: `TitleMatch`).
    case title(String)

    /// The fewest hexadecimal digits a uuid prefix may have: fewer would name too many recipes to be a name.
    public static let shortestPrefix = 4

    /// A reference to the recipe with id `value`.
    public init(integerLiteral value: Int64) { self = .id(value) }

    /// Reads a word: a whole number from 1 is an id, a uuid or the start of one (4 to 32 hexadecimal digits, dashes
    /// anywhere, any case) names a uuid, and so a title too when it holds a letter; any other word names a title. Nil
    /// for a blank word, one starting with `-` (an option mistyped is no title) and a word of digits that is neither
    /// an id nor a uuid start (`0`, `012`). A word of digits starting with 0 is no id (ids are written without one):
    /// `00000002` is the start of a uuid as `status` shows it, never recipe 2.
    public init?(_ word: String) {
        let text = word.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !text.hasPrefix("-") else { return nil }
        let isDecimal = text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        if isDecimal && !text.hasPrefix("0") {
            guard text.utf8.count <= 36, let id = Int64(text), id >= 1 else { return nil }
            self = text.utf8.count >= Self.shortestPrefix ? .idOrUUID(id, prefix: text) : .id(id)
            return
        }
        let digits = text.lowercased().filter { $0 != "-" }
        guard digits.count >= Self.shortestPrefix, digits.count <= 32,
            digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else {
            if isDecimal { return nil }
            self = .title(text)
            return
        }
        self = isDecimal ? .uuid(prefix: digits) : .uuidOrTitle(prefix: digits, name: text)
    }

    /// The word as a person would write it again (`3`, `3f2a91c0`).
    public var description: String {
        switch self {
        case .id(let id): String(id)
        case .idOrUUID(_, let prefix), .uuid(let prefix): prefix
        case .uuidOrTitle(_, let name), .title(let name): name
        }
    }

    /// What is wrong with a `word` that names no recipe, and what to give instead.
    public static func refusal(_ word: String) -> String {
        "\"\(word)\" names no recipe; give the id `list` shows, the recipe's title (or its start), or its uuid (or its "
            + "first \(shortestPrefix) or more characters, as `status` shows them)"
    }
}
