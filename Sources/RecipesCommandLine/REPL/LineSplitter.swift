/// Splits a REPL line into words the way a POSIX shell does, without expansions.
///
/// Blanks separate words; `'…'` keeps everything literally; `"…"` keeps everything except that `\"` and `\\`
/// stand for `"` and `\`; outside quotes a backslash takes the next character literally. `""` is an empty word.
public enum LineSplitter {
    /// Why a line could not be split.
    public enum SplitError: Error, Equatable, Sendable {
        case unbalancedSingleQuote
        case unbalancedDoubleQuote
        case trailingBackslash

        /// One line saying what is wrong and what to do.
        public var message: String {
            switch self {
            case .unbalancedSingleQuote: "unbalanced single quote; close it with '"
            case .unbalancedDoubleQuote: "unbalanced double quote; close it with \""
            case .trailingBackslash: "the line ends with a backslash; remove it or escape it as \\\\"
            }
        }
    }

    /// The words of `line`; empty for a blank line or one whose first non-blank character is `#`.
    public static func split(_ line: String) throws(SplitError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var iterator = line.makeIterator()
        if line.drop(while: { $0 == " " || $0 == "\t" }).first == "#" { return [] }
        while let character = iterator.next() {
            switch character {
            case " ", "\t", "\r", "\n":
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            case "'":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "'" { closed = true; break }
                    current.append(next)
                }
                if !closed { throw .unbalancedSingleQuote }
            case "\"":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "\"" { closed = true; break }
                    if next == "\\" {
                        guard let escaped = iterator.next() else { break }
                        if escaped != "\"" && escaped != "\\" { current.append("\\") }
                        current.append(escaped)
                        continue
                    }
                    current.append(next)
                }
                if !closed { throw .unbalancedDoubleQuote }
            case "\\":
                guard let escaped = iterator.next() else { throw .trailingBackslash }
                inWord = true
                current.append(escaped)
            default:
                inWord = true
                current.append(character)
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
