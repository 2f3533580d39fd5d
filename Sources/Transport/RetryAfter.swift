import Foundation

/// Parses a `Retry-After` value, either delay-seconds (`"120"`) or an HTTP date
/// (`"Wed, 21 Oct 2026 07:28:00 GMT"`, also the obsolete RFC 850 and asctime forms), into a delay from `now`.
///
/// A date in the past gives `.zero`; anything unparseable gives nil. See RFC 9110 section 10.2.3.
public func parseRetryAfter(_ value: String, now: Date) -> Duration? {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else { return nil }
    if trimmed.allSatisfy(\.isASCII) && trimmed.allSatisfy(\.isNumber) {
        // Delay-seconds; absurdly long values are clamped rather than overflowing.
        guard let seconds = Int64(trimmed.prefix(12)) else { return nil }
        return .seconds(seconds)
    }
    guard let date = HTTPDate.parse(trimmed) else { return nil }
    let delay = date.timeIntervalSince(now)
    guard delay > 0 else { return .zero }
    // A date thousands of years ahead (asctime's year has any number of digits) stays a number of milliseconds.
    return .milliseconds(Int64((min(delay, 1e12) * 1000).rounded(.up)))
}

/// The three date formats of RFC 9110 section 5.6.7, parsed without a locale-dependent formatter.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date `text` denotes, or nil when it is not an HTTP date.
    static func parse(_ text: String) -> Date? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT  → [Sun, 06, Nov, 1994, 08:49:37, GMT]
        if words.count == 6, words[5] == "GMT", let day = Int(words[1]), let month = month(words[2]),
           let year = Int(words[3]), words[3].count == 4 {
            return date(year: year, month: month, day: day, time: words[4])
        }
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT → [Sunday, 06-Nov-94, 08:49:37, GMT]
        if words.count == 4, words[3] == "GMT" {
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let day = Int(parts[0]), let month = month(parts[1]),
                  let shortYear = Int(parts[2]), parts[2].count == 2 else { return nil }
            // Two-digit years: RFC 9110 says interpret as the most recent past century year with those digits
            // unless more than 50 years ahead; for retry dates the simple 2000s reading is the useful one.
            return date(year: shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, month: month, day: day, time: words[2])
        }
        // asctime: Sun Nov  6 08:49:37 1994 → [Sun, Nov, 6, 08:49:37, 1994]
        if words.count == 5, let month = month(words[1]), let day = Int(words[2]), let year = Int(words[4]) {
            return date(year: year, month: month, day: day, time: words[3])
        }
        return nil
    }

    private static func month(_ name: String) -> Int? {
        months.firstIndex(of: name.lowercased()).map { $0 + 1 }
    }

    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let parts = time.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 3, (1...31).contains(day), (0...23).contains(parts[0]),
              (0...59).contains(parts[1]), (0...60).contains(parts[2]) else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.hour = parts[0]
        components.minute = parts[1]
        components.second = parts[2]
        guard let gmt = TimeZone(secondsFromGMT: 0) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = gmt
        guard let date = calendar.date(from: components),
              calendar.component(.day, from: date) == day else { return nil } // rejects 31 Feb and the like
        return date
    }
}
