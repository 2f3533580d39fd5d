import Foundation

/// A JSON value as Mealie sent it or as a write sends it: what a recipe's mapping reads and the `PATCH` body it
/// builds. Objects keep every key, so an element sent back (an ingredient, a step, a tag) carries what Mealie gave it.
public enum MealieJSON: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number that fits 64 bits, kept exactly.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([MealieJSON])
    /// An object, every key kept.
    case object([String: MealieJSON])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([MealieJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: MealieJSON].self))
        }
    }

    /// Encodes the value as it is.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value of `key` when this is an object that has it.
    public subscript(key: String) -> MealieJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The text of a string, nil for anything else.
    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A string's text, a number written as text (Mealie coerces `extras` and `nutrition` values to text), or empty
    /// for `null` and anything else.
    public var text: String {
        switch self {
        case .string(let text): text
        case .integer(let value): String(value)
        case .number(let value): String(value)
        default: ""
        }
    }

    /// The elements of an array, empty for anything else.
    public var elements: [MealieJSON] {
        if case .array(let elements) = self { return elements }
        return []
    }

    /// The members of an object, nil for anything else.
    public var members: [String: MealieJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The value's JSON bytes, keys sorted (the same value, the same bytes).
    public func data() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}
