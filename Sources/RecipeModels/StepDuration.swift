import Foundation

/// A time a step names ("bake for 25 minutes", "simmer 1 hour 15 min", "10-12 minutes"): what `recipes cook` offers
/// a timer for.
///
/// Read: a number (`25`, `1.5`, `1½`, `1 1/2`), a number word (`five`, `twenty-five`), `a`/`an` (`an hour`) or
/// `half an hour`, then a unit of hours, minutes or seconds (`hours`, `hr`, `h`, `minutes`, `mins`, `min`,
/// `seconds`, `secs`, `s`), written apart or attached (`1h30`, `25min`; `m` only attached, `30m`: `5 m` is metres); parts of smaller units after it add up
/// (`1 hour 15 min`, `1 hour and 15 minutes`, `1h 30m`, `an hour and a half`); a range (`10-12 minutes`,
/// `10 to 12 minutes`, `45 minutes to 1 hour`) is timed to its upper end and remembers its lower one. Not a timer:
/// words without a number (`overnight`, `a few minutes`, `until golden`), days and longer, a time after `every`
/// (`stir every 5 minutes`).
public struct StepDuration: Sendable, Equatable, Hashable {
    /// The shortest the step says, in seconds: the lower end of a range, else `longest`.
    public var shortest: Int
    /// The longest the step says, in seconds: what a timer counts down.
    public var longest: Int
    /// The words of the step that say it, as written ("10-12 minutes").
    public var text: String

    /// Creates a duration.
    public init(shortest: Int, longest: Int, text: String) {
        self.shortest = shortest
        self.longest = longest
        self.text = text
    }

    /// Whether the step gives a range (`10-12 minutes`).
    public var isRange: Bool { shortest < longest }

    /// Every time `text` (a step) names, in order.
    public static func all(in text: String) -> [StepDuration] {
        let tokens = Token.read(text)
        var found: [StepDuration] = []
        var index = 0
        while index < tokens.count {
            guard let (duration, end) = parse(tokens, at: index, in: text) else {
                index += 1
                continue
            }
            // "stir every 5 minutes" is no timer.
            let previous = index > 0 ? tokens[index - 1].word : nil
            if previous != "every" && previous != "each" { found.append(duration) }
            index = end
        }
        return found
    }

    /// `seconds` as a countdown shows it: `24:13`, `1:15:00` from an hour.
    public static func clock(_ seconds: Int) -> String {
        let seconds = max(0, seconds)
        let (hours, minutes, secs) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(two(minutes)):\(two(secs))"
    }

    // MARK: Reading

    /// A word, a number, a dash or a mark that ends a phrase, and where it is in the step.
    struct Token {
        enum Kind: Equatable { case word(String), number(Double), dash, stop }
        var kind: Kind
        var range: Range<String.Index>

        var word: String? { if case .word(let word) = kind { word } else { nil } }
        var number: Double? { if case .number(let number) = kind { number } else { nil } }

        /// The tokens of `text`; blanks separate them and are dropped.
        static func read(_ text: String) -> [Token] {
            var tokens: [Token] = []
            var index = text.startIndex
            while index < text.endIndex {
                let character = text[index]
                if character.isWhitespace {
                    index = text.index(after: index)
                } else if let (value, _, end) = QuantityScaling.number(in: text, at: index) {
                    tokens.append(Token(kind: .number(value), range: index..<end))
                    index = end
                } else if character.isLetter {
                    let end = text[index...].firstIndex { !$0.isLetter } ?? text.endIndex
                    let word = text[index..<end].folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                        .lowercased()
                    tokens.append(Token(kind: .word(word), range: index..<end))
                    index = end
                } else {
                    let end = text.index(after: index)
                    let dash = "-–—".contains(character)
                    tokens.append(Token(kind: dash ? .dash : .stop, range: index..<end))
                    index = end
                }
            }
            return tokens
        }
    }

    /// Seconds in one of each unit word.
    static let units: [String: Int] = [
        "hour": 3600, "hours": 3600, "hr": 3600, "hrs": 3600, "h": 3600,
        "minute": 60, "minutes": 60, "min": 60, "mins": 60, "m": 60,
        "second": 1, "seconds": 1, "sec": 1, "secs": 1, "s": 1,
    ]

    /// Numbers written as words.
    static let numberWords: [String: Double] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
        "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
        "ninety": 90,
    ]

    /// The duration starting at token `start`, and the index after it.
    static func parse(_ tokens: [Token], at start: Int, in text: String) -> (StepDuration, Int)? {
        guard var (low, high, end) = component(tokens, at: start) else { return nil }
        var unit = unitSize(tokens[end - 1])
        // Smaller parts added on: "1 hour 15 min", "1 hour and 15 minutes", "1h30", "an hour and a half".
        while end < tokens.count {
            var next = end
            if tokens[next].word == "and" { next += 1 }
            if let unit, unit > 1, next + 1 < tokens.count, tokens[next].word == "a", tokens[next + 1].word == "half" {
                low += unit / 2
                high += unit / 2
                end = next + 2
                break
            }
            if let (partLow, partHigh, partEnd) = component(tokens, at: next), let partUnit = unitSize(tokens[partEnd - 1]),
               let larger = unit, partUnit < larger, partLow == partHigh {
                low += partLow
                high += partHigh
                end = partEnd
                unit = partUnit
                continue
            }
            // "1h30": a bare number after hours is minutes.
            if unit == 3600, next == end, let minutes = tokens[next].number, minutes < 60, minutes == minutes.rounded(),
               tokens[next].range.lowerBound == tokens[next - 1].range.upperBound {
                low += Int(minutes) * 60
                high += Int(minutes) * 60
                end = next + 1
                unit = 60
            }
            break
        }
        // "45 minutes to 1 hour": a range across units.
        if end + 1 < tokens.count, tokens[end].kind == .dash || tokens[end].word == "to",
           let (other, otherEnd) = parse(tokens, at: end + 1, in: text), other.longest > high {
            high = other.longest
            end = otherEnd
        }
        guard high > 0 else { return nil }
        let written = String(text[tokens[start].range.lowerBound..<tokens[end - 1].range.upperBound])
        return (StepDuration(shortest: low, longest: high, text: written), end)
    }

    /// A number or range of numbers and its unit at token `start`: its seconds (low and high) and the index after it.
    static func component(_ tokens: [Token], at start: Int) -> (Int, Int, Int)? {
        guard let (low, afterLow) = amount(tokens, at: start) else { return nil }
        var high = low
        var index = afterLow
        if index + 1 < tokens.count, tokens[index].kind == .dash || tokens[index].word == "to" || tokens[index].word == "or",
           let (value, afterHigh) = amount(tokens, at: index + 1), value > low {
            high = value
            index = afterHigh
        }
        guard index < tokens.count, let size = unitSize(tokens[index]) else { return nil }
        // A unit of one letter counts only after a number: "1h", "30 s"; `m` only attached ("30m"; "5 m" is metres).
        if let letter = tokens[index].word, letter.count == 1 {
            guard tokens[index - 1].number != nil else { return nil }
            if letter == "m", tokens[index - 1].range.upperBound != tokens[index].range.lowerBound { return nil }
        }
        return (Int((low * Double(size)).rounded()), Int((high * Double(size)).rounded()), index + 1)
    }

    /// An amount at token `start`: a number (`1 and a half`), a number word (`twenty-five`), `a`/`an`, or
    /// `half an`/`half a`; its value and the index after it.
    static func amount(_ tokens: [Token], at start: Int) -> (Double, Int)? {
        guard start < tokens.count else { return nil }
        let token = tokens[start]
        if let value = token.number {
            if start + 3 < tokens.count, tokens[start + 1].word == "and", tokens[start + 2].word == "a",
               tokens[start + 3].word == "half" {
                return (value + 0.5, start + 4)
            }
            return (value, start + 1)
        }
        guard let word = token.word else { return nil }
        if word == "a" || word == "an" { return (1, start + 1) }
        if word == "half", start + 1 < tokens.count, tokens[start + 1].word == "an" || tokens[start + 1].word == "a" {
            return (0.5, start + 2)
        }
        guard let value = numberWords[word] else { return nil }
        // "twenty-five", "twenty five".
        var next = start + 1
        if value >= 20, next < tokens.count, tokens[next].kind == .dash { next += 1 }
        if value >= 20, next < tokens.count, let ones = tokens[next].word.flatMap({ numberWords[$0] }), ones < 10 {
            return (value + ones, next + 1)
        }
        return (value, start + 1)
    }

    /// The seconds in one of `token`'s unit, if it is a unit word.
    static func unitSize(_ token: Token) -> Int? {
        token.word.flatMap { units[$0] }
    }
}
