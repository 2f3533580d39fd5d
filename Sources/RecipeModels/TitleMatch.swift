import Foundation

/// Which recipes a name a person gave stands for, by their titles: the decision behind `recipes show lasagne`.
///
/// Titles and the name are compared as their keys (`key(_:)`): case and accents aside, runs of blanks as one space,
/// blanks at the ends dropped ("creme brulee" is "Crème brûlée"). A title whose key is the name's is an exact match,
/// and exact matches win over starts: "Pie" names "Pie" even beside "Pie crust". Without one, the titles whose key
/// starts with the name's are the matches ("lasagne" names "Lasagne al forno" when no other title starts so).
/// Deleted recipes are not among the titles given.
public enum TitleMatch: Equatable, Sendable {
    /// No title is or starts with the name.
    case none
    /// The one recipe named, by its id.
    case one(Int64)
    /// Several recipes are named (exactly, or by their start when none is exactly): their ids, in the order given.
    case several([Int64])

    /// The recipes among `titles` (id and title) that `name` stands for.
    public static func decide(_ name: String, among titles: [(id: Int64, title: String)]) -> TitleMatch {
        let wanted = key(name)
        guard !wanted.isEmpty else { return .none }
        let keyed = titles.map { (id: $0.id, key: key($0.title)) }
        let exact = keyed.filter { $0.key == wanted }.map(\.id)
        let matches = exact.isEmpty ? keyed.filter { $0.key.hasPrefix(wanted) }.map(\.id) : exact
        switch matches.count {
        case 0: return .none
        case 1: return .one(matches[0])
        default: return .several(matches)
        }
    }

    /// Whether `title` is or starts with `name`, case and accents aside (what Tab completion offers).
    public static func starts(_ title: String, with name: String) -> Bool {
        key(title).hasPrefix(key(name))
    }

    /// The form titles are compared in: case and diacritics folded, lower case, each run of blanks one space, no
    /// blanks at either end.
    public static func key(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .lowercased()
        return folded.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
