import Foundation
import RecipeModels

/// A recipe's times as Mealie shows them to people. Mealie keeps a time as free text and writes the ones it makes
/// itself (a page's `PT1H30M` imported) as `1 hour 30 minutes` (`pretty_print_timedelta` in its scraper: years of 365
/// days, days, hours, minutes, seconds, each as `n unit` with the unit plural but for 1). A time `recipes` keeps in ISO
/// 8601 is written in that form, and read back from it as ISO 8601 again, so a family's Mealie shows
/// `20 minutes`, never `PT20M`, and a write that changed no time finds none changed. Any other text (a family's
/// "about an hour", "90 mins") is read and written as it is.
public enum MealieDuration {
    /// What Mealie is sent for the time `recipes` keeps as `stored`: Mealie's form of an ISO 8601 time, any other text
    /// as it is.
    public static func written(_ stored: String) -> String {
        guard RecipeDuration.isISO8601(stored), let duration = try? RecipeDuration(parsing: stored) else { return stored }
        return text(seconds: duration.seconds)
    }

    /// What `recipes` keeps for Mealie's time `text`: ISO 8601 for a time in exactly the form Mealie writes (so that
    /// `written` gives the same text back), any other text as it is.
    public static func stored(_ text: String) -> String {
        guard !RecipeDuration.isISO8601(text), let duration = try? RecipeDuration(parsing: text), Self.text(seconds: duration.seconds) == text
        else { return text }
        return duration.iso8601
    }

    /// `seconds` as Mealie writes a time: `1 hour 30 minutes`, `45 minutes`, `2 days 4 hours`; `0 minutes` for none
    /// (Mealie's "none" would read back as a text, not a time).
    public static func text(seconds: Int) -> String {
        let units: [(Int, String)] = [(365 * 86_400, "year"), (86_400, "day"), (3600, "hour"), (60, "minute"), (1, "second")]
        var rest = max(0, seconds)
        var words: [String] = []
        for (scale, unit) in units where rest >= scale {
            let count = rest / scale
            rest -= count * scale
            words.append("\(count) \(unit)\(count == 1 ? "" : "s")")
        }
        return words.isEmpty ? "0 minutes" : words.joined(separator: " ")
    }
}
