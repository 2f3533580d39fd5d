import Foundation

/// One member of a JSON object as written: its key and its value's JSON text.
public typealias JSONMember = (key: String, value: [UInt8])

extension RecipeJSONLD {
    /// The members of the schema.org `Recipe` `recipes export` writes for `fields`, in sorted key order: every
    /// property read as a field and every other property the recipe arrived with (see `members(of:)`), `@type`, and
    /// `identifier`, `dateModified` and `image` when given — what `recipes import` reads back into the same recipe.
    public static func document(
        _ fields: RecipeFields, identifier: String? = nil, dateModified: String? = nil, image: String? = nil
    ) -> [JSONMember] {
        var written = Self.members(of: fields)
        func add(_ key: String, _ text: String?) {
            guard let text else { return }
            var value: [UInt8] = []
            JSONBytes.appendString(text, to: &value)
            written.append((key, value))
        }
        add("@type", "Recipe")
        add("identifier", identifier)
        add("dateModified", dateModified)
        add("image", image)
        return written.sorted { JSONBytes.precedes($0.key, $1.key) }
    }

    /// `documents` as one JSON array with a final newline: each document's members on a line of their own, indented,
    /// and each value as compact JSON (a property kept as it came stays as it was written).
    public static func encode(_ documents: [[JSONMember]]) -> Data {
        var out: [UInt8] = Array("[".utf8)
        for (index, members) in documents.enumerated() {
            out.append(contentsOf: (index == 0 ? "\n  {" : ",\n  {").utf8)
            for (position, member) in members.enumerated() {
                out.append(contentsOf: (position == 0 ? "\n    " : ",\n    ").utf8)
                JSONBytes.appendString(member.key, to: &out)
                out.append(contentsOf: ": ".utf8)
                out.append(contentsOf: member.value)
            }
            out.append(contentsOf: (members.isEmpty ? "}" : "\n  }").utf8)
        }
        out.append(contentsOf: (documents.isEmpty ? "]\n" : "\n]\n").utf8)
        return Data(out)
    }

    /// One document as an indented JSON object with a final newline (a file of `recipes export --out`).
    public static func encode(_ document: [JSONMember]) -> Data {
        var out: [UInt8] = Array("{".utf8)
        for (position, member) in document.enumerated() {
            out.append(contentsOf: (position == 0 ? "\n  " : ",\n  ").utf8)
            JSONBytes.appendString(member.key, to: &out)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: member.value)
        }
        out.append(contentsOf: (document.isEmpty ? "}\n" : "\n}\n").utf8)
        return Data(out)
    }
}
