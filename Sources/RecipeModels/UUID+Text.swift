import Foundation

/// A recipe's UUID as the contract writes it everywhere (URLs, outbox names, JSON, the database): 36 lowercase
/// characters, `8-4-4-4-12` hex digits.
///
/// Foundation's `uuidString` goes through `snprintf` and is uppercase, so each lowercase identity cost two
/// allocations and a formatted print; a 1,000-recipe sync built about six per recipe, 4% of its instructions.
extension UUID {
    /// `uuidString.lowercased()`, written directly from the bytes.
    public var lowercasedString: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                digits.withUTF8Buffer { hex in
                    var position = 0
                    for (index, byte) in bytes.enumerated() {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            out[position] = UInt8(ascii: "-")
                            position += 1
                        }
                        out[position] = hex[Int(byte >> 4)]
                        out[position + 1] = hex[Int(byte & 0x0F)]
                        position += 2
                    }
                }
                return 36
            }
        }
    }

    /// Parses the `8-4-4-4-12` form in either case, as `UUID(uuidString:)` does, without `sscanf`; nil for
    /// anything else.
    public init?(text: String) {
        var text = text
        let parsed: uuid_t? = text.withUTF8 { utf8 -> uuid_t? in
            guard utf8.count == 36 else { return nil }
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let ok = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        guard utf8[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                    }
                    guard let high = Self.hexValue(utf8[position]), let low = Self.hexValue(utf8[position + 1])
                    else { return false }
                    out[index] = high << 4 | low
                    position += 2
                }
                return true
            }
            return ok ? bytes : nil
        }
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
