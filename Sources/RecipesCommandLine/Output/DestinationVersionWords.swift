import Foundation

/// How a version of the destination reads to a person: the one place that decides it.
///
/// The sync layer keeps a destination's version as an opaque number. For the contract server (`server.kind http`) it
/// is a counter of writes and reads as one ("version 4"); for a Mealie it is the time Mealie last changed the recipe
/// (its `updatedAt`, in microseconds since the epoch, docs/mealie.md) and reads as that time in UTC ("updated on
/// Mealie at 2025-11-27 16:00:12 UTC"). A Mealie version that is no plausible time (one kept from a contract server
/// the home synced with before) reads as a number. The JSON of `--json` keeps the number: these words are for text.
enum DestinationVersionWords: Equatable {
    /// A version read as a number: the contract server's, or a Mealie's that is no plausible time.
    case number(Int64)
    /// The time Mealie last changed the recipe, to the second, in UTC: "2025-11-27 16:00:12 UTC".
    case mealieUpdate(String)

    /// The times a Mealie version is read as: from 2000-01-01 to before 2100-01-01 UTC, in microseconds. Mealie
    /// writes the time of each change; a number outside these years is not one of those times.
    static let plausibleMealieTimes: Range<Int64> = 946_684_800_000_000..<4_102_444_800_000_000

    /// The words of `version` of a destination of `kind`.
    init(version: Int64, kind: ServerKind) {
        switch kind {
        case .http:
            self = .number(version)
        case .mealie:
            guard Self.plausibleMealieTimes.contains(version) else {
                self = .number(version)
                return
            }
            self = .mealieUpdate(Self.utcTime(secondsSinceEpoch: version / 1_000_000))
        }
    }

    /// `version` of a destination of `kind` as `show` names it: "version 4", or "updated on Mealie at 2025-11-27
    /// 16:00:12 UTC".
    static func describe(version: Int64, kind: ServerKind) -> String {
        DestinationVersionWords(version: version, kind: kind).phrase
    }

    /// "version 4", or "updated on Mealie at 2025-11-27 16:00:12 UTC".
    var phrase: String {
        switch self {
        case .number(let version): "version \(version)"
        case .mealieUpdate(let time): "updated on Mealie at \(time)"
        }
    }

    /// The version alone, for the `SERVER` column of `status`: "4", or "2025-11-27 16:00:12 UTC".
    var value: String {
        switch self {
        case .number(let version): String(version)
        case .mealieUpdate(let time): time
        }
    }

    /// What an upload left on the server, after "done": "version 4 on the server", or "updated on Mealie at …".
    var onServer: String {
        switch self {
        case .number: phrase + " on the server"
        case .mealieUpdate: phrase
        }
    }

    /// What a pull took, after "pulled": "version 4 from the server", or "updated on Mealie at …".
    var fromServer: String {
        switch self {
        case .number: phrase + " from the server"
        case .mealieUpdate: phrase
        }
    }

    /// The server's copy at this version, after "merged with" and "changed here since": "the server's version 4", or
    /// "the server's copy updated on Mealie at …".
    var serversCopy: String {
        switch self {
        case .number: "the server's " + phrase
        case .mealieUpdate: "the server's copy " + phrase
        }
    }

    /// `seconds` after the epoch as `yyyy-MM-dd HH:mm:ss UTC`.
    private static func utcTime(secondsSinceEpoch seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + " UTC"
    }
}
