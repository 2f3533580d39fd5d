/// A JSON value (RFC 8259) read with the byte range it was written in, so that a member can be kept byte for byte:
/// the recipe documents inside a `POST /v1/recipes/batch` body are stored exactly as their own `PUT` would store them.
///
/// A strict parser (no comments, no trailing commas, no leading zeros, no raw control characters in strings, valid
/// UTF-8, one value followed only by whitespace), nested at most `maxDepth` deep so hostile input cannot exhaust the
/// stack. Numbers are kept as their text.
struct RawJSON: Sendable, Equatable {
    /// The value, with members and elements in the order written.
    enum Value: Sendable, Equatable {
        case object([Member])
        case array([RawJSON])
        case string(String)
        case number(String)
        case bool(Bool)
        case null
    }

    /// One member of an object.
    struct Member: Sendable, Equatable {
        var key: String
        var value: RawJSON
    }

    /// The value.
    var value: Value
    /// Where it was written in the parsed bytes (its first byte to just past its last).
    var range: Range<Int>

    /// The deepest nesting of arrays and objects accepted.
    static let maxDepth = 256

    /// The member named `key` of an object (the first, when a key repeats), else nil.
    subscript(key: String) -> RawJSON? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// Parses one JSON text; the error names the byte offset where it stopped making sense.
    static func parse(_ bytes: [UInt8]) throws(RawJSONError) -> RawJSON {
        var parser = RawJSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.fail("data after the JSON value") }
        return value
    }
}

/// Why a text is not JSON, and where.
struct RawJSONError: Error, Equatable {
    /// What was wrong.
    var problem: String
    /// The byte offset where it was found.
    var offset: Int

    /// "problem at byte N", for messages.
    var description: String { "\(problem) at byte \(offset)" }
}

/// The recursive-descent reader behind `RawJSON.parse`.
private struct RawJSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func fail(_ problem: String) -> RawJSONError { RawJSONError(problem: problem, offset: index) }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func value(depth: Int) throws(RawJSONError) -> RawJSON {
        guard index < bytes.count else { throw fail("unexpected end of the text") }
        let start = index
        let value: RawJSON.Value
        switch bytes[index] {
        case UInt8(ascii: "{"): value = try object(depth: depth + 1)
        case UInt8(ascii: "["): value = try array(depth: depth + 1)
        case UInt8(ascii: "\""): value = .string(try string())
        case UInt8(ascii: "t"): try literal("true"); value = .bool(true)
        case UInt8(ascii: "f"): try literal("false"); value = .bool(false)
        case UInt8(ascii: "n"): try literal("null"); value = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try number())
        default: throw fail("unexpected character")
        }
        return RawJSON(value: value, range: start..<index)
    }

    mutating func object(depth: Int) throws(RawJSONError) -> RawJSON.Value {
        guard depth <= RawJSON.maxDepth else { throw fail("nested deeper than \(RawJSON.maxDepth)") }
        index += 1
        var members: [RawJSON.Member] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected \":\" after a member name") }
            index += 1
            skipWhitespace()
            members.append(RawJSON.Member(key: key, value: try value(depth: depth)))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end inside an object") }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            guard bytes[index] == UInt8(ascii: ",") else { throw fail("expected \",\" or \"}\" in an object") }
            index += 1
        }
    }

    mutating func array(depth: Int) throws(RawJSONError) -> RawJSON.Value {
        guard depth <= RawJSON.maxDepth else { throw fail("nested deeper than \(RawJSON.maxDepth)") }
        index += 1
        var elements: [RawJSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end inside an array") }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            guard bytes[index] == UInt8(ascii: ",") else { throw fail("expected \",\" or \"]\" in an array") }
            index += 1
        }
    }

    mutating func literal(_ word: StaticString) throws(RawJSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              (0..<count).allSatisfy({ bytes[index + $0] == word.utf8Start[$0] }) else { throw fail("unexpected word") }
        index += count
    }

    /// A number as written: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func number() throws(RawJSONError) -> String {
        let start = index
        func digits(_ parser: inout RawJSONParser) -> Int {
            let first = parser.index
            while parser.index < parser.bytes.count, (48...57).contains(parser.bytes[parser.index]) { parser.index += 1 }
            return parser.index - first
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (48...57).contains(bytes[index]) else { throw fail("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { _ = digits(&self) }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw fail("expected a digit after \".\"") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw fail("expected a digit in the exponent") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A string, its escapes decoded; the bytes between escapes must be valid UTF-8 with no control characters.
    mutating func string() throws(RawJSONError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ parser: RawJSONParser, upTo end: Int) throws(RawJSONError) {
            guard runStart < end else { return }
            guard let text = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                throw RawJSONError(problem: "invalid UTF-8 in a string", offset: runStart)
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flushRun(self, upTo: index)
                index += 1
                return String(scalars)
            }
            guard byte >= 0x20 else { throw fail("a control character in a string (escape it)") }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            try flushRun(self, upTo: index)
            index += 1
            guard index < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
            default: throw fail("unknown escape")
            }
            runStart = index
        }
    }

    /// The scalar of a `\uXXXX` escape (after the `u`), joining a surrogate pair.
    mutating func unicodeEscape() throws(RawJSONError) -> Unicode.Scalar {
        let high = try hex4()
        if (0xD800...0xDBFF).contains(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw fail("a lone surrogate escape")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("a lone surrogate escape") }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(high) else { throw fail("a lone surrogate escape") }
        return scalar
    }

    mutating func hex4() throws(RawJSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("a short \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<(index + 4)] {
            let digit: UInt8
            switch byte {
            case 48...57: digit = byte - 48
            case 65...70: digit = byte - 55
            case 97...102: digit = byte - 87
            default: throw fail("a \\u escape that is not 4 hex digits")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }
}
