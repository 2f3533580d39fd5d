import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// printf-style formatting through the C library's `vsnprintf`: Foundation's `String(format:)` took about 12 µs a
/// call here, a sixtieth of a 1,000-recipe sync's CPU for one size per recipe.
enum CFormat {
    /// `format` filled with `arguments`, as `printf` would print it.
    static func string(_ format: String, _ arguments: any CVarArg...) -> String {
        let capacity = 128
        let short: String? = withVaList(arguments) { list in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
                let count = vsnprintf(buffer.baseAddress!, capacity, format, list)
                return count >= 0 && count < capacity ? String(cString: buffer.baseAddress!) : nil
            }
        }
        return short ?? String(format: format, arguments: arguments)   // longer than any text this tool formats
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
        return CFormat.string("%.1f", value) + " " + units[index]
    }
}

/// Lengths of time for people: `2.4 s`, `45 s`, `4 min 10 s`, `1 h 5 min`, `2 d 3 h`.
enum DurationFormat {
    /// Describes `seconds`: one decimal under 10 s, whole seconds under a minute, then two units at most.
    static func describe(_ seconds: Double) -> String {
        guard seconds.isFinite else { return seconds > 0 ? "a long time" : "0.0 s" }
        let seconds = max(0, seconds)
        if seconds < 9.95 { return CFormat.string("%.1f s", seconds) }
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
        return CFormat.string(
            "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int32(parts.tm_year) + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(fraction))
    }
}

extension Int64 {
    /// Division rounding towards minus infinity (so times before 1970 keep a positive fraction).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
