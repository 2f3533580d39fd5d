import Foundation
import GRDB
import RecipeModels

/// One recipe found by `RecipeStore.search`: best first, with where and what matched.
public struct SearchHit: Sendable, Equatable {
    /// The recipe's local id.
    public var id: Int64
    /// Its title.
    public var title: String
    /// The fields a word matched in, in the order title, description, keywords, ingredients, steps, category, cuisine,
    /// author.
    public var fields: [SearchField]
    /// The words of the recipe that matched, as written there, each once (first seen first).
    public var matchedWords: [String]
    /// A short excerpt of the best-matching field, each matched word between `SearchHit.markStart` and `markEnd`.
    public var snippet: String

    /// Marks the start of a matched word in `snippet` (a control character no recipe text contains after cleaning).
    public static let markStart = "\u{2}"
    /// Marks the end of a matched word in `snippet`.
    public static let markEnd = "\u{3}"
}

/// A searchable field of a recipe, by the name `search` accepts in `field:word`.
public enum SearchField: String, Sendable, CaseIterable {
    /// The recipe's name.
    case title
    /// Its description.
    case description
    /// Its keywords.
    case keywords
    /// Its ingredients, all of them as one text.
    case ingredients
    /// Its steps, all of them as one text.
    case steps
    /// Its categories (`recipeCategory`), one per line.
    case category
    /// Its cuisines (`recipeCuisine`), one per line.
    case cuisine
    /// Its author.
    case author

    /// The field a `field:` prefix names: the column names, and `ingredient`, `step`, `keyword` for short.
    public init?(prefix: String) {
        switch prefix.lowercased() {
        case "title": self = .title
        case "description": self = .description
        case "keywords", "keyword": self = .keywords
        case "ingredients", "ingredient": self = .ingredients
        case "steps", "step": self = .steps
        case "category", "categories": self = .category
        case "cuisine", "cuisines": self = .cuisine
        case "author": self = .author
        default: return nil
        }
    }
}

/// What a search found: the best hits and how many recipes matched in all.
public struct SearchResult: Sendable, Equatable {
    /// The best hits, best first, at most the limit asked for.
    public var hits: [SearchHit]
    /// How many recipes matched (not deleted ones).
    public var total: Int
}

/// Why words could not become a search.
public struct SearchQueryError: Error, LocalizedError, Sendable, Equatable {
    /// The one-line message.
    public var message: String
    /// The one-line message.
    public var errorDescription: String? { message }
}

/// The FTS5 query for the words a person typed (https://sqlite.org/fts5.html#full_text_query_syntax): every word
/// must match (AND), each as a prefix (`tom` finds "tomatoes"), quoted so that no word is read as FTS5 syntax;
/// `field:word` limits that word to one field.
public enum SearchQuery {
    /// The MATCH expression for `words`; throws when no word holds a letter or digit, or a field name is unknown.
    public static func expression(for words: [String]) throws(SearchQueryError) -> String {
        var terms: [String] = []
        for word in words {
            var text = Substring(word)
            var column: SearchField?
            if let colon = text.firstIndex(of: ":"), colon != text.startIndex {
                let name = String(text[..<colon])
                guard let field = SearchField(prefix: name) else {
                    let names = SearchField.allCases.map(\.rawValue).joined(separator: ", ")
                    throw SearchQueryError(message: "unknown field \"\(name)\" in \"\(word)\"; the fields are \(names)")
                }
                column = field
                text = text[text.index(after: colon)...]
            }
            guard text.contains(where: { $0.isLetter || $0.isNumber }) else { continue }
            let quoted = "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"*"
            terms.append(column.map { "\($0.rawValue) : \(quoted)" } ?? quoted)
        }
        guard !terms.isEmpty else {
            throw SearchQueryError(message: "give at least one word with a letter or digit to search for")
        }
        return terms.joined(separator: " ")
    }
}

extension RecipeStore {
    /// The migration that makes the search index's lists refresh once per change (`refreshSearch`).
    static let searchRefreshMigration = "0007_search_refresh"

    /// Brings the search index's ingredients and steps up to date for every recipe whose lists the current transaction
    /// wrote: each recipe once, however many of its rows changed (migration `0007_search_refresh`: the rows' triggers
    /// mark the recipe stale, and deleting the mark rebuilds its lists in the index). Called inside every change's
    /// transaction just before it commits.
    static func refreshSearch(_ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM recipe_search_stale").execute()
    }

    /// The recipes (not deleted) whose title, description, keywords, ingredients, steps, category, cuisine or author
    /// contain every word of `words`, best first (FTS5's bm25 rank, a title match weighing most), at most `limit` of them.
    public func search(_ words: [String], limit: Int = 20) throws(StoreError) -> SearchResult {
        let expression: String
        do {
            expression = try SearchQuery.expression(for: words)
        } catch {
            throw StoreError(.badSearch(error.message))
        }
        return try read { db in
            // One statement: FTS5 sorts by rank itself, so the highlights are computed for the rows returned only
            // (a statement per hit parsed the query and merged a prefix's lists again each time). Deleted recipes
            // are not in the index (see migration 0004).
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT rowid, title,
                        highlight(recipe_search, 0, char(2), char(3)), highlight(recipe_search, 1, char(2), char(3)),
                        highlight(recipe_search, 2, char(2), char(3)), highlight(recipe_search, 3, char(2), char(3)),
                        highlight(recipe_search, 4, char(2), char(3)), highlight(recipe_search, 5, char(2), char(3)),
                        highlight(recipe_search, 6, char(2), char(3)), highlight(recipe_search, 7, char(2), char(3)),
                        snippet(recipe_search, -1, char(2), char(3), '…', 12)
                    FROM recipe_search WHERE recipe_search MATCH ? ORDER BY rank LIMIT ?
                    """),
                arguments: [expression, max(0, limit)])
            let total = try Int.fetchOne(
                db.cachedStatement(sql: "SELECT count(*) FROM recipe_search WHERE recipe_search MATCH ?"),
                arguments: [expression]) ?? 0
            let hits = rows.map { row -> SearchHit in
                var fields: [SearchField] = []
                var words: [String] = []
                for (index, field) in SearchField.allCases.enumerated() {
                    let marked = Self.markedWords(in: row[index + 2] as String? ?? "")
                    if !marked.isEmpty { fields.append(field) }
                    for word in marked where !words.contains(where: { $0.lowercased() == word.lowercased() }) {
                        words.append(word)
                    }
                }
                return SearchHit(
                    id: row[0], title: row[1] as String? ?? "", fields: fields, matchedWords: words,
                    snippet: row[SearchField.allCases.count + 2] as String? ?? "")
            }
            return SearchResult(hits: hits, total: total)
        }
    }

    /// The words between the highlight marks of `text`, in order.
    static func markedWords(in text: String) -> [String] {
        var words: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: SearchHit.markStart) {
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: SearchHit.markEnd) else { break }
            words.append(String(rest[..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return words
    }
}
