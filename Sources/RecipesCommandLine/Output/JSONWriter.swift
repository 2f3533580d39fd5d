/// Writes JSON text directly: objects with keys in a fixed order, strings escaped per RFC 8259, and DEL and the C1
/// controls escaped too (`\u009b` is a one-character CSI to some terminals; the value read back is the same).
///
/// `recipes status --json` over thousands of recipes spends most of its time in `JSONEncoder`; the values here
/// are only strings, numbers, nulls, arrays and objects, so writing them out is simple and several times faster.
struct JSONWriter {
    /// The JSON text written so far.
    private(set) var text = ""

    /// A value the writer can emit.
    enum Value {
        case string(String?)
        case integer(Int64?)
        /// A number written in its shortest exact form (`2.4`, `1e-05`); infinities and NaN, which JSON cannot
        /// hold, are written as `null`.
        case double(Double?)
        case raw(String)
    }

    /// Appends `{"key":value,…}` with the pairs in the given order.
    mutating func object(_ pairs: KeyValuePairs<String, Value>) {
        object(ordered: pairs)
    }

    /// Appends `{"key":value,…}` with the pairs in the given order; for objects whose keys vary (keys left out
    /// where a value is absent), built as an array.
    mutating func object(ordered pairs: some Sequence<(key: String, value: Value)>) {
        text.append("{")
        var first = true
        for (key, value) in pairs {
            if !first { text.append(",") }
            first = false
            appendString(key)
            text.append(":")
            switch value {
            case .string(let string?): appendString(string)
            case .integer(let number?): text.append(String(number))
            case .double(let number?) where number.isFinite: text.append(String(number))
            case .string(nil), .integer(nil), .double: text.append("null")
            case .raw(let json): text.append(json)
            }
        }
        text.append("}")
    }

    /// Appends `[element,…]`, each element written by `body`.
    mutating func array<Element>(_ elements: some Sequence<Element>, _ body: (inout JSONWriter, Element) -> Void) {
        text.append("[")
        var first = true
        for element in elements {
            if !first { text.append(",") }
            first = false
            body(&self, element)
        }
        text.append("]")
    }

    /// The JSON text of one string value.
    static func quoted(_ string: String) -> String {
        var writer = JSONWriter()
        writer.appendString(string)
        return writer.text
    }

    private mutating func appendString(_ string: String) {
        text.append("\"")
        var clean = true
        // 0xC2 leads the UTF-8 of U+0080…U+00BF, the C1 controls among them.
        for byte in string.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            || byte == 0x7F || byte == 0xC2
        {
            clean = false
            break
        }
        if clean {
            text.append(string)
        } else {
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text.append("\\\"")
                case "\\": text.append("\\\\")
                case "\n": text.append("\\n")
                case "\r": text.append("\\r")
                case "\t": text.append("\\t")
                case let control where control.value < 0x20 || (0x7F...0x9F).contains(control.value):
                    let hex = String(control.value, radix: 16)
                    text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                default: text.unicodeScalars.append(scalar)
                }
            }
        }
        text.append("\"")
    }
}
