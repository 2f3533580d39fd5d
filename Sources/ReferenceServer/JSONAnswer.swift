import NIOCore

/// A JSON value of the server's answers, written straight into a `ByteBuffer`.
///
/// The answers are small and of a few fixed shapes, so writing them directly costs a fraction of building
/// `[String: Any]` for `JSONSerialization` (which showed up at 5% of the server's CPU under a 1,000-recipe sync).
/// The output is what `JSONSerialization` writes with `.sortedKeys` and `.withoutEscapingSlashes`, for keys in lower
/// camel case like every key of the contract (keys are sorted by their UTF-8 bytes; Foundation ignores case).
enum JSONAnswer: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case null
    case array([JSONAnswer])
    case object([String: JSONAnswer])
    /// JSON text written as it is (a stored recipe document, inlined in a changes page).
    case raw(ByteBuffer)

    /// The serialized bytes.
    var buffer: ByteBuffer {
        var buffer = ByteBuffer()
        write(into: &buffer)
        return buffer
    }

    /// Appends the serialized value: object members in sorted key order, no whitespace.
    func write(into buffer: inout ByteBuffer) {
        switch self {
        case .string(let text):
            Self.writeString(text, into: &buffer)
        case .integer(let number):
            buffer.writeString(String(number))
        case .bool(let value):
            buffer.writeStaticString(value ? "true" : "false")
        case .null:
            buffer.writeStaticString("null")
        case .raw(let json):
            buffer.writeImmutableBuffer(json)
        case .array(let items):
            buffer.writeInteger(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                item.write(into: &buffer)
            }
            buffer.writeInteger(UInt8(ascii: "]"))
        case .object(let members):
            buffer.writeInteger(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &buffer)
                buffer.writeInteger(UInt8(ascii: ":"))
                member.value.write(into: &buffer)
            }
            buffer.writeInteger(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes, everything else
    /// (including `/` and non-ASCII) as its UTF-8 bytes.
    private static func writeString(_ text: String, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case 0x08: buffer.writeStaticString("\\b")
            case 0x0C: buffer.writeStaticString("\\f")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                buffer.writeStaticString("\\u00")
                buffer.writeInteger(hex.utf8Start[Int(byte >> 4)])
                buffer.writeInteger(hex.utf8Start[Int(byte & 0x0F)])
            default:
                buffer.writeInteger(byte)
            }
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }
}
