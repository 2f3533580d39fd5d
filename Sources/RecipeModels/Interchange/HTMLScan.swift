/// The byte-level pieces of `RecipeJSONLD.scripts(inHTML:)`: ASCII matched without regard to case, each byte of the
/// page looked at a bounded number of times.
enum HTMLScan {
    /// The first index at or after `start` where `pattern` (ASCII, lower case) begins, in any case; nil when none.
    static func find(_ pattern: String, in bytes: [UInt8], from start: Int) -> Int? {
        let needle = Array(pattern.utf8)
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if lower(bytes[index]) == first, matches(needle, bytes, at: index) { return index }
            index += 1
        }
        return nil
    }

    /// The first end tag `</script` + blanks + `>` at or after `start`: where it begins and one past its `>`.
    static func endTag(in bytes: [UInt8], from start: Int) -> (start: Int, end: Int)? {
        var index = start
        while let close = find("</script", in: bytes, from: index) {
            var end = close + 8
            while end < bytes.count, isBlank(bytes[end]) { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: ">") { return (close, end + 1) }
            index = close + 8
        }
        return nil
    }

    /// Whether a tag's attributes (`attributes`: what lies between `<script` and `>`) say
    /// `type="application/ld+json"` (quotes optional, blanks around `=` allowed, any case).
    static func isJSONLD(_ attributes: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(attributes)
        var index = 0
        while let type = find("type", in: bytes, from: index) {
            index = type + 4
            guard type == 0 || !isWordByte(bytes[type - 1]) else { continue }
            var at = type + 4
            while at < bytes.count, isBlank(bytes[at]) { at += 1 }
            guard at < bytes.count, bytes[at] == UInt8(ascii: "=") else { continue }
            at += 1
            while at < bytes.count, isBlank(bytes[at]) { at += 1 }
            if at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") { at += 1 }
            if matches(Array("application/ld+json".utf8), bytes, at: at) { return true }
        }
        return false
    }

    /// Whether `needle` (lower case) is at `index` of `bytes`, in any case.
    static func matches(_ needle: [UInt8], _ bytes: [UInt8], at index: Int) -> Bool {
        guard index + needle.count <= bytes.count else { return false }
        for offset in 0..<needle.count where lower(bytes[index + offset]) != needle[offset] { return false }
        return true
    }

    /// `byte` with ASCII upper-case letters made lower case.
    static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// A letter, digit or underscore (any byte of a non-ASCII character counts as a letter): what a regular
    /// expression's `\b` tells from the rest.
    static func isWordByte(_ byte: UInt8) -> Bool {
        let lowered = lower(byte)
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lowered) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    /// A blank as regular expressions' `\s` means it in ASCII.
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
