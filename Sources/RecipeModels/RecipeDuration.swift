/// A recipe's time (`prepTime`, `cookTime`, `totalTime`): read as a person writes it (`1h 30m`, `90 min`,
/// `1 hour 30 minutes`) or as ISO 8601 (`PT1H30M`), kept as ISO 8601, and shown as `1h 30m`.
public struct RecipeDuration: Sendable, Hashable, CustomStringConvertible {
    /// The length in whole seconds.
    public var seconds: Int

    /// A duration of `seconds` seconds.
    public init(seconds: Int) { self.seconds = max(0, seconds) }

    /// The ISO 8601 form the recipe keeps: `PT1H30M`, `P1DT2H`, `PT0M` for nothing.
    public var iso8601: String {
        let (days, hours, minutes, secs) = parts
        var text = "P"
        if days > 0 { text += "\(days)D" }
        guard hours > 0 || minutes > 0 || secs > 0 || days == 0 else { return text }
        text += "T"
        if hours > 0 { text += "\(hours)H" }
        if minutes > 0 || (hours == 0 && secs == 0) { text += "\(minutes)M" }
        if secs > 0 { text += "\(secs)S" }
        return text
    }

    /// As a person reads it: `1h 30m`, `2d 3h`, `45m`, `0m`.
    public var description: String {
        let (days, hours, minutes, secs) = parts
        var words: [String] = []
        if days > 0 { words.append("\(days)d") }
        if hours > 0 { words.append("\(hours)h") }
        if minutes > 0 { words.append("\(minutes)m") }
        if secs > 0 { words.append("\(secs)s") }
        return words.isEmpty ? "0m" : words.joined(separator: " ")
    }

    private var parts: (Int, Int, Int, Int) {
        (seconds / 86_400, seconds % 86_400 / 3600, seconds % 3600 / 60, seconds % 60)
    }

    /// How a stored time reads to a person: its duration as `description` writes it, or the text as written when it
    /// is not a duration (a page may have written anything).
    public static func display(_ stored: String) -> String {
        (try? RecipeDuration(parsing: stored)).map(\.description) ?? stored
    }

    /// What a recipe keeps for a time typed as `typed`: nothing for an empty text, an ISO 8601 time as typed, any
    /// other time in ISO 8601 (`1h 30m` → `PT1H30M`). Throws when `typed` is not a time.
    public static func stored(_ typed: String) throws(DurationError) -> String {
        let trimmed = typed.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return "" }
        if iso8601Seconds(trimmed) != nil { return trimmed }
        return try RecipeDuration(parsing: trimmed).iso8601
    }

    /// Reads `text`: ISO 8601 (`PT1H30M`, `P1DT2H`, `PT0.5H`, `P0DT0H35M0.000S`; years and months only when zero) or
    /// numbers each followed by a unit (`d`/`day(s)`, `h`/`hr(s)`/`hour(s)`, `m`/`min(s)`/`minute(s)`,
    /// `s`/`sec(s)`/`second(s)`), with blanks, commas or "and" between them: `1h 30m`, `1h30m`, `90 min`,
    /// `1.5 hours`, `1 hour and 20 minutes`. Throws a message saying what a time looks like.
    public init(parsing text: String) throws(DurationError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let iso = Self.iso8601Seconds(trimmed) {
            self.init(seconds: iso)
            return
        }
        guard let seconds = Self.spokenSeconds(trimmed) else { throw DurationError(text: text) }
        self.init(seconds: seconds)
    }

    /// Whether `text` (blanks around it aside) is an ISO 8601 duration (`PT1H30M`), not a time in words.
    public static func isISO8601(_ text: String) -> Bool {
        iso8601Seconds(text.trimmingCharacters(in: .whitespaces)) != nil
    }

    /// The seconds of an ISO 8601 duration, or nil when `text` is not one.
    static func iso8601Seconds(_ text: String) -> Int? {
        var rest = Substring(text.uppercased())
        guard rest.first == "P", rest.count > 1 else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var sawNumber = false
        var lastRank = -1  // designators come in order, each at most once: Y M W D, then T H M S
        while !rest.isEmpty {
            if rest.first == "T" {
                guard !inTime else { return nil }
                inTime = true
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
                continue
            }
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == ",") }
            guard !number.isEmpty, let value = Double(number.replacingOccurrences(of: ",", with: ".")),
                  let unit = rest.dropFirst(number.count).first
            else { return nil }
            rest = rest.dropFirst(number.count + 1)
            sawNumber = true
            let rank = (inTime ? ["H", "M", "S"].firstIndex(of: unit).map { $0 + 4 } : ["Y", "M", "W", "D"].firstIndex(of: unit)) ?? -1
            guard rank > lastRank else { return nil }
            lastRank = rank
            switch (unit, inTime) {
            case ("Y", false), ("M", false):
                guard value == 0 else { return nil }  // a recipe does not take months; such a time is refused
            case ("W", false): total += value * 604_800
            case ("D", false): total += value * 86_400
            case ("H", true): total += value * 3600
            case ("M", true): total += value * 60
            case ("S", true): total += value
            default: return nil
            }
        }
        guard sawNumber, total < 1e9 else { return nil }
        return Int(total.rounded())
    }

    /// The seconds of a time written as numbers and units, or nil when `text` is not one.
    static func spokenSeconds(_ text: String) -> Int? {
        let units: [(names: Set<String>, seconds: Double)] = [
            (["d", "day", "days"], 86_400),
            (["h", "hr", "hrs", "hour", "hours"], 3600),
            (["m", "min", "mins", "minute", "minutes"], 60),
            (["s", "sec", "secs", "second", "seconds"], 1),
        ]
        var rest = Substring(text.lowercased())
        var total = 0.0
        var count = 0
        func skipSeparators() {
            while true {
                rest = rest.drop { $0 == " " || $0 == "," || $0 == "\t" }
                if rest.hasPrefix("and ") { rest = rest.dropFirst(4) } else { return }
            }
        }
        skipSeparators()
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count).drop { $0 == " " }
            let word = rest.prefix { $0.isLetter }
            guard let unit = units.first(where: { $0.names.contains(String(word)) }) else { return nil }
            rest = rest.dropFirst(word.count)
            if rest.first == "." { rest = rest.dropFirst() }  // "min."
            total += value * unit.seconds
            count += 1
            skipSeparators()
        }
        guard count > 0, total < 1e9 else { return nil }
        return Int(total.rounded())
    }
}

/// A time that could not be read: what was given and what a time looks like.
public struct DurationError: Error, Sendable, Equatable {
    /// The text as given.
    public var text: String

    /// The message: what is wrong and how to write a time.
    public var message: String {
        "\"\(text)\" is not a time; write it like 1h 30m, 90 min or PT1H30M (\"\" clears it)"
    }
}
