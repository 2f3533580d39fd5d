import Foundation
import GRDB
import RecipeModels

extension RecipeStore {
    /// The local id of the recipe `reference` names: an id a recipe has, or a uuid prefix exactly one recipe's uuid
    /// starts with; an unknown id, or a prefix of none or several, is an error that says so (listing the several). A
    /// word of digits that is both a recipe's id and the start of another's uuid is refused, naming both. A title, or
    /// its start, names the recipe not deleted whose title it is or starts with (`TitleMatch`); several are refused,
    /// listed. A word that may be a uuid start and a title start (`beef`) names the one recipe either finds; one
    /// each, or more, is refused, naming them.
    /// Read before anything is opened for writing, so that a command naming no recipe creates nothing.
    public func recipeID(_ reference: RecipeReference) throws(StoreError) -> Int64 {
        switch reference {
        case .id(let id):
            guard try recipe(withID: id) != nil else { throw StoreError(.unknownRecipe(id: id)) }
            return id
        case .idOrUUID(let id, let prefix):
            let byID = try recipe(withID: id)
            let byUUID = try recipes(withUUIDPrefix: prefix).filter { $0.id != id }
            if let byID {
                guard byUUID.isEmpty else {
                    throw StoreError(.ambiguousReference(word: prefix, id: byID, uuids: byUUID))
                }
                return id
            }
            switch byUUID.count {
            case 0: throw StoreError(.unknownRecipe(id: id))
            case 1: return byUUID[0].id
            default: throw StoreError(.ambiguousUUID(prefix: prefix, matches: byUUID))
            }
        case .uuid(let prefix):
            return try recipeID(uuidPrefix: prefix)
        case .title(let name):
            let titled = try recipes(titled: name)
            switch titled.count {
            case 0: throw StoreError(.noRecipeTitled(name: name))
            case 1: return titled[0].id
            default: throw StoreError(.ambiguousTitle(name: name, matches: titled))
            }
        case .uuidOrTitle(let prefix, let name):
            let byUUID = try recipes(withUUIDPrefix: prefix)
            let titled = try recipes(titled: name)
            let ids = Set(byUUID.map(\.id) + titled.map(\.id))
            if ids.count == 1, let id = ids.first { return id }
            if ids.isEmpty { throw StoreError(.noRecipeWithUUIDOrTitle(word: name)) }
            if titled.isEmpty { throw StoreError(.ambiguousUUID(prefix: prefix, matches: byUUID)) }
            if byUUID.isEmpty { throw StoreError(.ambiguousTitle(name: name, matches: titled)) }
            throw StoreError(.ambiguousUUIDOrTitle(word: name, uuids: byUUID, titles: titled))
        }
    }

    /// The recipes not deleted whose title `name` is, or starts, as `TitleMatch` decides; by id.
    private func recipes(titled name: String) throws(StoreError) -> [UUIDMatch] {
        let all = try read { db in
            try Row.fetchAll(db, sql: "SELECT id, uuid, title FROM recipes WHERE deleted = 0 ORDER BY id")
                .map { UUIDMatch(id: $0[0], uuid: $0[1], title: $0[2]) }
        }
        switch TitleMatch.decide(name, among: all.map { (id: $0.id, title: $0.title) }) {
        case .none: return []
        case .one(let id): return all.filter { $0.id == id }
        case .several(let ids): return all.filter { ids.contains($0.id) }
        }
    }


    /// The recipe with the local id `id`, if there is one.
    private func recipe(withID id: Int64) throws(StoreError) -> UUIDMatch? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT id, uuid, title FROM recipes WHERE id = ?", arguments: [id])
                .map { UUIDMatch(id: $0[0], uuid: $0[1], title: $0[2]) }
        }
    }

    /// The local ids of `references`, in order (see `recipeID(_:)`).
    public func recipeIDs(_ references: [RecipeReference]) throws(StoreError) -> [Int64] {
        var ids: [Int64] = []
        for reference in references { ids.append(try recipeID(reference)) }
        return ids
    }

    /// The one recipe whose uuid (its hexadecimal digits, without dashes) starts with `prefix`.
    private func recipeID(uuidPrefix prefix: String) throws(StoreError) -> Int64 {
        let matches = try recipes(withUUIDPrefix: prefix)
        switch matches.count {
        case 0: throw StoreError(.noRecipeWithUUID(prefix: prefix))
        case 1: return matches[0].id
        default: throw StoreError(.ambiguousUUID(prefix: prefix, matches: matches))
        }
    }

    /// The recipes (up to six) whose uuid starts with `prefix`, by id.
    private func recipes(withUUIDPrefix prefix: String) throws(StoreError) -> [UUIDMatch] {
        try read { db in
            // A prefix of hexadecimal digits holds no LIKE wildcard; `substr` keeps the comparison exact.
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, uuid, title FROM recipes WHERE substr(replace(uuid, '-', ''), 1, ?) = ? ORDER BY id LIMIT 6
                    """,
                arguments: [prefix.count, prefix]
            ).map { UUIDMatch(id: $0[0], uuid: $0[1], title: $0[2]) }
        }
    }
}

/// A recipe whose uuid starts with a prefix a person gave: what an ambiguous prefix lists.
public struct UUIDMatch: Sendable, Equatable {
    /// Its local id.
    public var id: Int64
    /// Its uuid, lower case with dashes.
    public var uuid: String
    /// Its title.
    public var title: String
}
