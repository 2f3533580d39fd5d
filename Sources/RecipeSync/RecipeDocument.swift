import Foundation
import RecipeModels

#if canImport(Glibc)
import Glibc
#endif

/// The recipe as the server receives it: a schema.org `Recipe` in JSON-LD (CONTRACT section 3).
///
/// The bytes are a pure function of the recipe, the version and the image URL, so a retried upload sends the same
/// document and the outbox file of a revision is reproducible: compact JSON, keys in sorted order, slashes not
/// escaped — the bytes `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes (a test holds the two to
/// the same bytes). Written by hand because `JSONEncoder` was a twentieth of a 1,000-recipe sync's CPU.
public enum RecipeDocument {
    /// The JSON document for `recipe` as the server's version `version`, referring to the server's `imageURL` when it
    /// has an image.
    public static func encode(_ recipe: Recipe, version: Int64, imageURL: String?) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        // Keys in sorted (byte) order: @context, @type, dateModified, description, identifier, image, keywords, name,
        // recipeIngredient, recipeInstructions, recipeYield, version.
        out.append(contentsOf: #"{"@context":"https://schema.org","@type":"Recipe","dateModified":"#.utf8)
        appendString(timestamp(recipe.dateModified), to: &out)
        out.append(contentsOf: #","description":"#.utf8)
        appendString(recipe.description, to: &out)
        out.append(contentsOf: #","identifier":"#.utf8)
        appendString(recipe.uuid.lowercasedString, to: &out)
        if recipe.image != nil, let imageURL {
            out.append(contentsOf: #","image":"#.utf8)
            appendString(imageURL, to: &out)
        }
        out.append(contentsOf: #","keywords":"#.utf8)
        appendString(recipe.keywords, to: &out)
        out.append(contentsOf: #","name":"#.utf8)
        appendString(recipe.title, to: &out)
        out.append(contentsOf: #","recipeIngredient":["#.utf8)
        for (index, ingredient) in recipe.ingredients.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(ingredient.text, to: &out)
        }
        out.append(contentsOf: #"],"recipeInstructions":["#.utf8)
        for (index, step) in recipe.steps.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"@type":"HowToStep","text":"#.utf8)
            appendString(step.text, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"],"recipeYield":"#.utf8)
        appendString(recipe.recipeYield, to: &out)
        out.append(contentsOf: #","version":"#.utf8)
        out.append(contentsOf: String(version).utf8)
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    /// Appends `string` as a JSON string: quotes, backslashes and control characters escaped as `JSONEncoder` does
    /// (`\b \f \n \r \t`, else `\u00XX` in lowercase hex), everything else as its UTF-8 bytes.
    static func appendString(_ string: String, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
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
