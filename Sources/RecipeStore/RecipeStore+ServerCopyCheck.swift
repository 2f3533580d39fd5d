import Foundation
import RecipeModels

extension RecipeStore {
    /// Why the server's `copy` of a recipe cannot be taken here, in words, or nil when it can.
    ///
    /// The store's rules apply to what a pull brings as to every edit: a version out of `ServerNumbers`' bounds, text
    /// `RecipeText` refuses (a NUL byte, which SQLite and C strings would cut the text at, or a control character),
    /// a blank title, or a list longer than `RecipeLimits` is refused whole rather than stored differently from what
    /// the server holds (a shortened text would later be pushed over the server's).
    public static func refusal(of copy: ServerCopy) -> String? {
        let version = copy.version
        guard ServerNumbers.isVersion(version) else {
            return "the server's version number \(version) is out of range (recipes takes 1 to \(ServerNumbers.maximum))"
        }
        guard case .live(_, let fields) = copy else { return nil }
        // Every text a person could edit: the fields, details, ingredients, steps and their sections.
        if let (field, problem) = RecipeText.problem(in: fields.content) {
            let subject = field == .keywords ? "its keywords contain" : "its \(field.rawValue) contains"
            let what: String
            switch problem {
            case .nulByte: what = "a NUL byte (\\0), which recipes cannot store"
            case .controlCharacter(let value): what = "the control character U+\(hex4(value)), which recipes does not store"
            case .lineBreak: what = "a line break, which a \(field.rawValue) cannot hold here"
            }
            return "the server's version \(version) is not taken: \(subject) \(what)"
        }
        if fields.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return "the server's version \(version) is not taken: its title is blank"
        }
        if let (what, count) = RecipeLimits.overLimit(ingredients: fields.ingredients.count, steps: fields.steps.count) {
            return "the server's version \(version) is not taken: it has \(count) \(what), more than the "
                + "\(RecipeLimits.listLength) recipes keeps"
        }
        return nil
    }

    /// `value` as at least four upper-case hexadecimal digits.
    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
