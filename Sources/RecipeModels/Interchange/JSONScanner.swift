import Foundation

/// Splits a JSON object into its members, or an array into its elements, each value as the exact text it was written
/// as: how a recipe's properties are kept verbatim (a parser that builds values would write numbers, escapes and
/// spacing back its own way).
///
/// It checks the structure it walks (strings closed, brackets balanced, members separated by commas); what lies inside
/// a value is checked by whoever parses that value.
public enum JSONScanner {
    /// The members of the JSON object `json`, in order, each value's text trimmed of the blanks around it; nil when
    /// `json` is not one object (blanks around it allowed).
    public static func members(of json: String) -> [(key: String, value: String)]? {
        var json = json
        return json.withUTF8 { bytes in members(of: bytes) }
    }

    /// The members of the JSON object in `data` (see `members(of:)` for a string).
    public static func members(of data: Data) -> [(key: String, value: String)]? {
        data.withUnsafeBytes { raw in members(of: raw.bindMemory(to: UInt8.self)) }
    }

    /// The elements of the JSON array `json`, in order, each as its text; nil when `json` is not one array.
    public static func elements(of json: String) -> [String]? {
        var json = json
        return json.withUTF8 { bytes in
            var scanner = Cursor(bytes: bytes)
            guard let ranges = scanner.arrayElements(), scanner.atEnd else { return nil }
            return ranges.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        }
    }

    /// The members of the JSON object at `range` of `data` (all of it when nil), each value as its byte range in
    /// `data`; nil when that is not one object.
    public static func memberRanges(of data: Data, in range: Range<Int>? = nil) -> [(key: String, value: Range<Int>)]? {
        scan(data, range) { cursor in cursor.objectMembers().map(ScannedMembers.init) }?.members
    }

    /// The elements of the JSON array at `range` of `data`, each as its byte range in `data`; nil when that is not one
    /// array.
    public static func elementRanges(of data: Data, in range: Range<Int>? = nil) -> [Range<Int>]? {
        scan(data, range) { cursor in cursor.arrayElements() }
    }

    /// Runs `body` over the bytes of `range` of `data` and moves the ranges it finds into `data`'s offsets.
    private static func scan<Found>(
        _ data: Data, _ range: Range<Int>?, _ body: (inout Cursor) -> Found?
    ) -> Found? where Found: RangeShiftable {
        data.withUnsafeBytes { raw -> Found? in
            let all = raw.bindMemory(to: UInt8.self)
            let range = range ?? 0..<all.count
            guard range.lowerBound >= 0, range.upperBound <= all.count else { return nil }
            var cursor = Cursor(bytes: UnsafeBufferPointer(rebasing: all[range]))
            guard let found = body(&cursor), cursor.atEnd else { return nil }
            return found.shifted(by: range.lowerBound)
        }
    }

    static func members(of bytes: UnsafeBufferPointer<UInt8>) -> [(key: String, value: String)]? {
        var scanner = Cursor(bytes: bytes)
        guard let members = scanner.objectMembers(), scanner.atEnd else { return nil }
        return members.map { member in
            (member.key, String(decoding: UnsafeBufferPointer(rebasing: bytes[member.value]), as: UTF8.self))
        }
    }

    /// A position in the bytes of a JSON text.
    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            skipBlanks()
        }

        /// Whether only blanks are left.
        var atEnd: Bool {
            mutating get {
                skipBlanks()
                return position == bytes.count
            }
        }

        mutating func skipBlanks() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        /// The members of the object that starts here (keys decoded, values as byte ranges), moving past it.
        mutating func objectMembers() -> [(key: String, value: Range<Int>)]? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return nil }
            position += 1
            var members: [(key: String, value: Range<Int>)] = []
            skipBlanks()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return members
            }
            while true {
                skipBlanks()
                guard let keyRange = skipString(), let key = JSONScanner.decodeString(bytes, keyRange) else { return nil }
                skipBlanks()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                skipBlanks()
                guard let value = skipValue() else { return nil }
                members.append((key, value))
                skipBlanks()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "}") else { return nil }
                position += 1
                return members
            }
        }

        /// The elements of the array that starts here, as byte ranges, moving past it.
        mutating func arrayElements() -> [Range<Int>]? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else { return nil }
            position += 1
            var elements: [Range<Int>] = []
            skipBlanks()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return elements
            }
            while true {
                skipBlanks()
                guard let value = skipValue() else { return nil }
                elements.append(value)
                skipBlanks()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "]") else { return nil }
                position += 1
                return elements
            }
        }

        /// Moves past the string that starts here; the range of the whole string, quotes included.
        mutating func skipString() -> Range<Int>? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            let start = position
            position += 1
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\\"): position += 2
                case UInt8(ascii: "\""):
                    position += 1
                    return start..<position
                default: position += 1
                }
            }
            return nil
        }

        /// Moves past the value that starts here; its range.
        mutating func skipValue() -> Range<Int>? {
            guard position < bytes.count else { return nil }
            let start = position
            switch bytes[position] {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while position < bytes.count {
                    switch bytes[position] {
                    case UInt8(ascii: "\""):
                        guard skipString() != nil else { return nil }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return start..<position
                        }
                    default: break
                    }
                    position += 1
                }
                return nil
            default:
                // A number, true, false or null: up to the next delimiter.
                while position < bytes.count,
                      ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) {
                    position += 1
                }
                return position > start ? start..<position : nil
            }
        }
    }

    /// The text of the JSON string at `range` (quotes included), its escapes decoded; nil when an escape is malformed.
    static func decodeString(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        let inner = UnsafeBufferPointer(rebasing: bytes[(range.lowerBound + 1)..<(range.upperBound - 1)])
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
            utf8.removeAll(keepingCapacity: true)
        }
        var index = 0
        func hex4() -> UInt32? {
            guard index + 4 <= inner.count else { return nil }
            let text = String(decoding: UnsafeBufferPointer(rebasing: inner[index..<(index + 4)]), as: UTF8.self)
            index += 4
            return UInt32(text, radix: 16)
        }
        while index < inner.count {
            let byte = inner[index]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            guard index + 1 < inner.count else { return nil }
            let escape = inner[index + 1]
            index += 2
            let simple: [UInt8: UInt8] = [
                UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
                UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
            ]
            if let plain = simple[escape] {
                utf8.append(plain)
                continue
            }
            guard escape == UInt8(ascii: "u"), var code = hex4() else { return nil }
            if (0xD800..<0xDC00).contains(code), index + 6 <= inner.count, inner[index] == UInt8(ascii: "\\"),
               inner[index + 1] == UInt8(ascii: "u") {
                index += 2
                guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            flush()
            scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
        }
        flush()
        return String(scalars)
    }
}

/// What a scan finds, in offsets that can be moved to those of an enclosing buffer.
protocol RangeShiftable {
    func shifted(by offset: Int) -> Self
}

extension Array: RangeShiftable where Element == Range<Int> {
    func shifted(by offset: Int) -> [Range<Int>] { map { ($0.lowerBound + offset)..<($0.upperBound + offset) } }
}

/// Members found by a scan: keys with value ranges.
struct ScannedMembers: RangeShiftable {
    var members: [(key: String, value: Range<Int>)]
    func shifted(by offset: Int) -> ScannedMembers {
        ScannedMembers(members: members.map { ($0.key, ($0.value.lowerBound + offset)..<($0.value.upperBound + offset)) })
    }
}
