import Foundation

/// The top-level fields of a JSON object answer: strings and integers by name, anything else (fractions, booleans,
/// null, arrays, objects) only skipped. Read by hand because `JSONSerialization`'s bridged dictionaries, and then
/// `JSONDecoder`, were each two to three per cent of a 1,000-recipe sync's CPU for a two-field answer.
enum AnswerFields {
    enum Value: Equatable {
        case string(String)
        case integer(Int64)
        case other
    }

    /// The fields of `data` when it is one JSON object (surrounding white space allowed), else nil.
    static func parse(_ data: Data) -> [String: Value]? {
        data.withUnsafeBytes { raw -> [String: Value]? in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            return reader.object()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func object() -> [String: Value]? {
            guard expect(UInt8(ascii: "{")) else { return nil }
            var fields: [String: Value] = [:]
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipSpace()
                    guard let key = string(), expect(UInt8(ascii: ":")) else { return nil }
                    skipSpace()
                    guard let value = value() else { return nil }
                    fields[key] = value
                    skipSpace()
                    if expect(UInt8(ascii: ",")) { continue }
                    guard expect(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipSpace()
            return index == bytes.count ? fields : nil
        }

        private mutating func value() -> Value? {
            guard let next = peek() else { return nil }
            switch next {
            case UInt8(ascii: "\""):
                return string().map(Value.string)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return number()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                return skipNested() ? .other : nil
            case UInt8(ascii: "t"): return literal("true") ? .other : nil
            case UInt8(ascii: "f"): return literal("false") ? .other : nil
            case UInt8(ascii: "n"): return literal("null") ? .other : nil
            default: return nil
            }
        }

        /// A JSON string with its escapes decoded (`\\uXXXX` surrogate pairs included; invalid UTF-8 repaired);
        /// nil when malformed.
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            // The usual case: no escape, one slice.
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
                index = end + 1
                return text
            }
            var text = ""
            var plainStart = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    text += String(decoding: UnsafeBufferPointer(rebasing: bytes[plainStart..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                if byte < 0x20 { return nil }
                if byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                text += String(decoding: UnsafeBufferPointer(rebasing: bytes[plainStart..<index]), as: UTF8.self)
                guard index + 1 < bytes.count else { return nil }
                let escape = bytes[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "\""): text.append("\"")
                case UInt8(ascii: "\\"): text.append("\\")
                case UInt8(ascii: "/"): text.append("/")
                case UInt8(ascii: "b"): text.append("\u{08}")
                case UInt8(ascii: "f"): text.append("\u{0C}")
                case UInt8(ascii: "n"): text.append("\n")
                case UInt8(ascii: "r"): text.append("\r")
                case UInt8(ascii: "t"): text.append("\t")
                case UInt8(ascii: "u"):
                    guard var code = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(code) {
                        guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                            (0xDC00..<0xE000).contains(low)
                        else { return nil }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { return nil }
                    text.unicodeScalars.append(scalar)
                default:
                    return nil
                }
                plainStart = index
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var code: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                code = code << 4 | UInt32(digit)
                index += 1
            }
            return code
        }

        /// A JSON number: `.integer` when it has no fraction or exponent and fits in 64 bits, else `.other`.
        private mutating func number() -> Value? {
            let start = index
            if peek() == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            guard index > digitsStart else { return nil }
            var integral = true
            if peek() == UInt8(ascii: ".") {
                integral = false
                index += 1
                let fraction = index
                while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
                guard index > fraction else { return nil }
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                integral = false
                index += 1
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
                let exponent = index
                while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
                guard index > exponent else { return nil }
            }
            guard integral else { return .other }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            return Int64(text).map(Value.integer) ?? .other
        }

        /// Skips an array or object (strings inside may hold brackets); false when it never closes.
        private mutating func skipNested() -> Bool {
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard string() != nil else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return true
                    }
                default:
                    break
                }
                index += 1
            }
            return false
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        /// Skips white space, then takes `byte` if it comes next.
        private mutating func expect(_ byte: UInt8) -> Bool {
            skipSpace()
            return take(byte)
        }

        /// Takes `byte` if it comes next (no white space skipped: inside a string).
        private mutating func take(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }
    }
}
