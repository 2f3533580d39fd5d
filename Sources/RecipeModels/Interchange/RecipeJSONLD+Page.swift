import Foundation

extension RecipeJSONLD {
    /// The page's canonical address: the `href` of its first `<link rel="canonical">` (HTML character references
    /// decoded), or nil when it has none. Relative addresses are returned as written; the caller resolves them.
    public static func canonicalLink(inHTML html: String) -> String? {
        var rest = html[...]
        while let open = rest.range(of: "<link", options: .caseInsensitive) {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: ">") else { return nil }
            let attributes = Self.attributes(rest[..<close])
            rest = rest[close...]
            let relations = attributes["rel"]?.lowercased().split(separator: " ") ?? []
            guard relations.contains("canonical"), let href = attributes["href"], !href.isEmpty else { continue }
            return decodeEntities(href).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return nil
    }

    /// The attributes of a tag's text after its name: `name="value"`, `name='value'` or `name=value`, names
    /// lower-cased; of a name given twice, the last counts (the first with `keepingFirst`, as in a browser).
    static func attributes(_ text: Substring, keepingFirst: Bool = false) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "/" }
            let name = rest.prefix { !$0.isWhitespace && $0 != "=" && $0 != ">" && $0 != "/" }
            guard !name.isEmpty else { return result }
            rest = rest.dropFirst(name.count).drop { $0.isWhitespace }
            guard rest.first == "=" else {
                if !keepingFirst || result[name.lowercased()] == nil { result[name.lowercased()] = "" }
                continue
            }
            rest = rest.dropFirst().drop { $0.isWhitespace }
            let value: Substring
            if let quote = rest.first, quote == "\"" || quote == "'" {
                let body = rest.dropFirst()
                let end = body.firstIndex(of: quote) ?? body.endIndex
                value = body[..<end]
                rest = end < body.endIndex ? body[body.index(after: end)...] : body[end...]
            } else {
                value = rest.prefix { !$0.isWhitespace }
                rest = rest.dropFirst(value.count)
            }
            if !keepingFirst || result[name.lowercased()] == nil { result[name.lowercased()] = String(value) }
        }
    }
}
