/// An instant as Mealie writes `updatedAt`: UTC, to the microsecond, held exactly as a count of microseconds.
///
/// Mealie stores `updated_at` with microseconds and compares `queryFilter` dates at that precision (strictly: `>`
/// excludes the same microsecond), so the cursor of a pull must keep all six digits; a `Double` of seconds does not
/// (docs/mealie.md, "Timestamps").
public struct MealieTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public let microseconds: Int64

    /// The earliest and latest instants accepted: years 0001 to 9999, what ISO 8601's four-digit years can say.
    static let range: ClosedRange<Int64> = (-62_135_596_800 * 1_000_000)...(253_402_300_799 * 1_000_000 + 999_999)

    /// The instant `microseconds` after the epoch; nil outside years 0001–9999.
    public init?(microseconds: Int64) {
        guard Self.range.contains(microseconds) else { return nil }
        self.microseconds = microseconds
    }

    /// An instant already known to be in range.
    private init(clamped microseconds: Int64) {
        self.microseconds = min(max(microseconds, Self.range.lowerBound), Self.range.upperBound)
    }

    public static func < (lhs: MealieTimestamp, rhs: MealieTimestamp) -> Bool { lhs.microseconds < rhs.microseconds }

    /// This instant moved back by `duration` (at the earliest instant accepted).
    public func movedBack(by duration: Duration) -> MealieTimestamp {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let delta = overflow ? Int64.max : scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000).partialValue
        let (moved, underflow) = microseconds.subtractingReportingOverflow(max(0, delta))
        return MealieTimestamp(clamped: underflow ? Self.range.lowerBound : moved)
    }

    /// The form sent in a `queryFilter`: `2026-11-27T10:15:56.212913Z`, always six fractional digits.
    public var description: String {
        let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
        let fraction = microseconds - seconds * 1_000_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.from(daysSinceEpoch: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
            + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2) + "." + pad(fraction, 6) + "Z"
    }

    /// Reads the timestamps Mealie writes: `2026-11-27T10:15:56.212913Z` (a single recipe), `…+00:00` (list items),
    /// without a fraction when the microseconds are zero, and any `±HH:MM` offset. Nil for anything else: no offset
    /// (Mealie always writes one), more than six fractional digits (a precision this cursor cannot keep), fields out
    /// of range (month 13, 31 February, hour 24), or a year outside 0001–9999.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int64? {
            guard index + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<(index + digits)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += digits
            return value
        }
        func literal(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = number(4), literal("-"), let month = number(2), literal("-"), let day = number(2),
              literal("T") || literal(" "), let hour = number(2), literal(":"), let minute = number(2), literal(":"),
              let second = number(2),
              (1...12).contains(month), (1...CivilDate.days(inMonth: month, year: year)).contains(day),
              year >= 1, hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction: Int64 = 0
        if literal(".") {
            var digits = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                guard digits < 6 else { return nil }
                fraction = fraction * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<6 { fraction *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if literal("Z") || literal("z") {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), literal(":"), let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.init(microseconds: seconds * 1_000_000 + fraction)
    }

    private func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// Proleptic Gregorian dates as day counts, by Howard Hinnant's `days_from_civil` and `civil_from_days`
/// (https://howardhinnant.github.io/date_algorithms.html): integers only, no calendar or locale.
enum CivilDate {
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func from(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func days(inMonth month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
