/// How a person names a recipe: by its id, the small number `list` shows on this device, or by its uuid, whole or
/// a prefix of it, which is the same on every device (the pancakes may be 1 on the laptop and 3 on the tablet, but
/// they are `3f2a91c0` on both).
public enum RecipeReference: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// A local id (a word of 1 to 3 digits, the first not 0).
    case id(Int64)
    /// A word of 4 or more digits, the first not 0: an id when a recipe has it, the start of a uuid when one starts
    /// so (eight hexadecimal digits that happen to be decimal ones are a uuid prefix as `status` shows it); both at
    /// once is ambiguous.
    case idOrUUID(Int64, prefix: String)
    /// The start of a uuid, lower-case hexadecimal digits without dashes (at least 4 of them).
    case uuid(prefix: String)

    /// The fewest hexadecimal digits a uuid prefix may have: fewer would name too many recipes to be a name.
    public static let shortestPrefix = 4

    /// A reference to the recipe with id `value`.
    public init(integerLiteral value: Int64) { self = .id(value) }

    /// Reads a word: a whole number from 1 is an id, a uuid or the start of one (4 to 32 hexadecimal digits, dashes
    /// anywhere, any case) names a uuid; nil for anything else. A word of digits starting with 0 is no id (ids are
    /// written without one): `00000002` is the start of a uuid as `status` shows it, never recipe 2.
    public init?(_ word: String) {
        let text = word.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.utf8.count <= 36 else { return nil }
        if text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) && !text.hasPrefix("0") {
            guard let id = Int64(text), id >= 1 else { return nil }
            self = text.utf8.count >= Self.shortestPrefix ? .idOrUUID(id, prefix: text) : .id(id)
            return
        }
        let digits = text.lowercased().filter { $0 != "-" }
        guard digits.count >= Self.shortestPrefix, digits.count <= 32,
            digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return nil }
        self = .uuid(prefix: digits)
    }

    /// The word as a person would write it again (`3`, `3f2a91c0`).
    public var description: String {
        switch self {
        case .id(let id): String(id)
        case .idOrUUID(_, let prefix), .uuid(let prefix): prefix
        }
    }

    /// What is wrong with a `word` that names no recipe, and what to give instead.
    public static func refusal(_ word: String) -> String {
        "\"\(word)\" is not a recipe id or uuid; give the id `list` shows, or the recipe's uuid (or its first "
            + "\(shortestPrefix) or more characters, as `status` shows them)"
    }
}
