import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Numbers with one decimal, written without `printf`: `vsnprintf` through `withVaList` (whose arguments are cast to
/// their C forms at run time) cost more than the rest of a plain sync line, and a 1,000-recipe sync formats a size for
/// every recipe.
enum OneDecimal {
    /// What `String(format: "%.1f", value)` prints — the exact binary value rounded to tenths, exact halves to even —
    /// for magnitudes below 10^14 (`256.0`, `1.5`, `-0.3`). Larger ones, which no size, rate or duration of this tool
    /// reaches, are written as Swift prints a `Double` (`1e+300`).
    static func string(_ value: Double) -> String {
        if value < 0 { return "-" + string(-value) }
        guard value.isFinite, value < 1e14 else { return "\(value)" }
        let scaled = value * 10
        // `value * 10` exactly is `scaled + error` (a fused multiply-add gives the product's rounding error), so a
        // value just below a half (0.35 is 0.34999…) rounds down as printf rounds it, not up as `scaled` alone would.
        let error = (-scaled).addingProduct(value, 10)
        let whole = scaled.rounded(.down)
        let fraction = scaled - whole
        let up = fraction > 0.5
            || fraction == 0.5 && (error > 0 || error == 0 && whole.truncatingRemainder(dividingBy: 2) == 1)
        let tenths = UInt64(whole) + (up ? 1 : 0)
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// Sizes and transfer rates for people, in binary units with one decimal: `512 B`, `256.0 KiB`, `1.2 MiB/s`.
enum ByteFormat {
    private static let units = ["KiB", "MiB", "GiB", "TiB"]

    /// A size: bytes below 1 KiB as a whole number (`512 B`), above with one decimal (`256.0 KiB`, `1.5 GiB`).
    static func describe(_ bytes: Int64) -> String {
        if bytes < 0 { return "-" + describe(bytes == .min ? .max : -bytes) }
        if bytes < 1024 { return "\(bytes) B" }
        return scaled(Double(bytes) / 1024, from: 0)
    }

    /// A transfer rate, always in KiB/s or above (`0.5 KiB/s`, `64.0 KiB/s`, `1.2 MiB/s`); nonsense (negative,
    /// infinite, not a number) reads as `0.0 KiB/s`.
    static func rate(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "0.0 KiB/s" }
        return scaled(bytesPerSecond / 1024, from: 0) + "/s"
    }

    /// `value` (in `units[index]`) with one decimal, moved up a unit while it would print as 1024.0 or more.
    private static func scaled(_ value: Double, from index: Int) -> String {
        var value = value
        var index = index
        while value >= 1023.95, index < units.count - 1 {
            value /= 1024
            index += 1
        }
        return OneDecimal.string(value) + " " + units[index]
    }
}

/// Lengths of time for people: `2.4 s`, `45 s`, `4 min 10 s`, `1 h 5 min`, `2 d 3 h`.
enum DurationFormat {
    /// Describes `seconds`: one decimal under 10 s, whole seconds under a minute, then two units at most.
    static func describe(_ seconds: Double) -> String {
        guard seconds.isFinite else { return seconds > 0 ? "a long time" : "0.0 s" }
        let seconds = max(0, seconds)
        if seconds < 9.95 { return OneDecimal.string(seconds) + " s" }
        let whole = Int64(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return pair(whole / 60, "min", whole % 60, "s") }
        if whole < 86400 { return pair(whole / 3600, "h", whole % 3600 / 60, "min") }
        return pair(whole / 86400, "d", whole % 86400 / 3600, "h")
    }

    private static func pair(_ major: Int64, _ majorUnit: String, _ minor: Int64, _ minorUnit: String) -> String {
        minor == 0 ? "\(major) \(majorUnit)" : "\(major) \(majorUnit) \(minor) \(minorUnit)"
    }
}

/// Timestamps of sync events in UTC with milliseconds, e.g. `2026-11-20T10:00:00.123Z`.
enum EventTimestamp {
    /// The ISO 8601 text of `date` (milliseconds rounded down, so a line never claims a later time than the event).
    static func string(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        let fraction = milliseconds - Int64(seconds) * 1000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return digits(Int(parts.tm_year) + 1900, 4) + "-" + digits(Int(parts.tm_mon) + 1, 2) + "-"
            + digits(Int(parts.tm_mday), 2) + "T" + digits(Int(parts.tm_hour), 2) + ":" + digits(Int(parts.tm_min), 2)
            + ":" + digits(Int(parts.tm_sec), 2) + "." + digits(Int(fraction), 3) + "Z"
    }
}

extension Int64 {
    /// Division rounding towards minus infinity (so times before 1970 keep a positive fraction).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
