import Foundation
import RecipeModels

/// A recipe as the server has it: its identity, the version, and the fields a merge compares (its image as the
/// server's URL).
public struct ServerRecipe: Sendable, Equatable {
    /// The recipe's identity.
    public var identifier: UUID
    /// The server's version of it.
    public var version: Int64
    /// Its fields.
    public var fields: RecipeFields

    /// Creates a server recipe.
    public init(identifier: UUID, version: Int64, fields: RecipeFields) {
        self.identifier = identifier
        self.version = version
        self.fields = fields
    }

    /// Reads a stored document (`GET /v1/recipes/{uuid}`, a change of the feed): a schema.org `Recipe` as
    /// `RecipeDocument` or another app wrote it (`RecipeJSONLD.readDocument`), every property it has kept. Nil when
    /// it is not one: no identifier or version, a name that is not a text, an image URL that does not end in a
    /// SHA-256, ingredients or steps that are not texts (or `HowToStep`s and `HowToSection`s).
    public init?(document: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: document) as? [String: Any],
              let members = JSONScanner.members(of: document)
        else { return nil }
        self.init(object: object, members: members)
    }

    /// Reads a document already parsed as a JSON object, with its members as written; the version read exactly
    /// (`ServerInteger`).
    init?(object: [String: Any], members: [(key: String, value: String)]) {
        guard let read = RecipeJSONLD.readDocument(object: object, members: members),
            let identifierText = read.identifier, let identifier = UUID(text: identifierText.lowercased()),
            let version = ServerInteger.read(object["version"])
        else { return nil }
        var fields = read.fields
        if let url = object["image"] {
            guard let url = url as? String, let server = RecipeImage(serverURL: url) else { return nil }
            fields.image = server
        }
        self.init(identifier: identifier, version: version, fields: fields)
    }
}

/// One change of the server's changes feed.
public struct ServerChange: Sendable, Equatable {
    /// Its sequence number.
    public var seq: Int64
    /// The recipe it concerns.
    public var uuid: UUID
    /// The version it made.
    public var version: Int64
    /// The recipe as that version has it; nil for a deletion.
    public var recipe: ServerRecipe?
}

/// One page of the changes feed (`GET /v1/changes`).
public struct ChangesPage: Sendable, Equatable {
    /// The server's id: another id means another (or a reset) server.
    public var server: String
    /// The changes, in sequence order.
    public var changes: [ServerChange]
    /// Where the next page starts (`since`).
    public var next: Int64
    /// Whether changes after `next` exist.
    public var more: Bool

    /// Reads a page; nil when the answer is not one (a change whose document does not read, whose document names
    /// another recipe or version, or sequence numbers out of order make the whole page unreadable).
    public init?(_ data: Data) {
        // The documents as written, to keep every property of them exactly: the page's `changes`, each change's
        // `recipe` (the server puts each stored document in as it is).
        let pageMembers = JSONScanner.memberRanges(of: data)
        let changesRange = pageMembers?.last { $0.key == "changes" }?.value
        let changeRanges = changesRange.flatMap { JSONScanner.elementRanges(of: data, in: $0) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let server = object["server"] as? String, !server.isEmpty,
            let list = object["changes"] as? [[String: Any]],
            let next = ServerInteger.read(object["next"]), ServerNumbers.isSequence(next),
            let more = object["more"] as? Bool
        else { return nil }
        guard changeRanges?.count == list.count else { return nil }
        var changes: [ServerChange] = []
        for (index, item) in list.enumerated() {
            guard let seq = ServerInteger.read(item["seq"]), ServerNumbers.isSequence(seq), seq > 0,
                let uuidText = item["uuid"] as? String, let uuid = UUID(text: uuidText.lowercased()),
                let version = ServerInteger.read(item["version"]),
                let deleted = item["deleted"] as? Bool, seq > (changes.last?.seq ?? Int64.min)
            else { return nil }
            var recipe: ServerRecipe?
            if !deleted {
                let recipeRange = changeRanges.flatMap { JSONScanner.memberRanges(of: data, in: $0[index]) }?
                    .last { $0.key == "recipe" }?.value
                guard let document = item["recipe"] as? [String: Any], let recipeRange,
                    let members = JSONScanner.members(of: data.subdata(in: (data.startIndex + recipeRange.lowerBound)..<(data.startIndex + recipeRange.upperBound))),
                    let read = ServerRecipe(object: document, members: members),
                    read.identifier == uuid, read.version == version
                else { return nil }
                recipe = read
            }
            changes.append(ServerChange(seq: seq, uuid: uuid, version: version, recipe: recipe))
        }
        self.server = server
        self.changes = changes
        self.next = next
        self.more = more
    }
}

/// An integer of a server's JSON, exactly as sent.
///
/// Read through a `Double` (as before), `9007199254740993` became `9007199254740992` and `9223372036854775807` was
/// lost; `true` is not 1. Whether the value is in bounds is for its reader to say (`ServerNumbers`; the store refuses
/// a recipe's version out of them, with a message for that recipe).
enum ServerInteger {
    /// The integer `value` holds: nil for anything but a JSON number without a fraction that fits in 64 bits.
    static func read(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }  // "c": a Bool
        return value as? Int64
    }
}
