import Foundation
import RecipeModels

#if canImport(Glibc)
import Glibc
#endif

/// The recipe as the server receives it: a schema.org `Recipe` in JSON-LD (docs/http-api.md, "The recipe document").
///
/// The bytes are a pure function of the recipe, the version and the image URL, so a retried upload sends the same
/// document and the outbox file of a revision is reproducible: compact JSON, keys in sorted order, slashes not
/// escaped — the bytes `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes (a test holds the two to
/// the same bytes) — with every property the recipe arrived with and nobody edited written exactly as it came
/// (`RecipeJSONLD.members(of:)`). Written by hand because `JSONEncoder` was a twentieth of a 1,000-recipe sync's CPU.
public enum RecipeDocument {
    /// The JSON document for `recipe` as the server's version `version`, referring to the server's `imageURL` when it
    /// has an image.
    public static func encode(_ recipe: Recipe, version: Int64, imageURL: String?) -> Data {
        var members = RecipeJSONLD.members(of: RecipeFields(recipe))
        func add(_ key: String, _ text: String) {
            var value: [UInt8] = []
            JSONBytes.appendString(text, to: &value)
            members.append((key, value))
        }
        add("@type", "Recipe")
        add("dateModified", timestamp(recipe.dateModified))
        add("identifier", recipe.uuid.lowercasedString)
        if recipe.image != nil, let imageURL { add("image", imageURL) }
        members.append(("version", Array(String(version).utf8)))
        var out: [UInt8] = []
        out.reserveCapacity(512)
        JSONBytes.appendObject(members.sorted { JSONBytes.precedes($0.key, $1.key) }, to: &out)
        return Data(out)
    }

    /// Appends `string` as a JSON string (see `JSONBytes.appendString`).
    static func appendString(_ string: String, to out: inout [UInt8]) {
        JSONBytes.appendString(string, to: &out)
    }

    /// `date` as ISO 8601 in UTC to the whole second (`2026-11-20T10:00:00Z`), as `Date.ISO8601FormatStyle` writes it.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        let yearText = year >= 0 && year < 1000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(yearText)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
