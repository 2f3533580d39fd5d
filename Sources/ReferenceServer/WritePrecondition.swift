import HTTPTypes

/// The precondition a recipe write carries (docs/http-api.md): the server version it was based on, or "new".
public enum WritePrecondition: Sendable, Equatable {
    /// `If-Match: "<base>"`: the write is based on server version `base`.
    case basedOn(Int)
    /// `If-None-Match: *`: the client has never seen this recipe on the server.
    case new
    /// Neither header: the server answers `428`.
    case none

    /// Reads the precondition from a request's headers; a malformed or contradictory one is a `400` saying what to send.
    public static func parse(_ headers: HTTPFields) throws(ServerError) -> WritePrecondition {
        let ifMatch = headers[values: .ifMatch]
        let ifNoneMatch = headers[values: .ifNoneMatch]
        switch (ifMatch.isEmpty, ifNoneMatch.isEmpty) {
        case (true, true):
            return .none
        case (false, false):
            throw .badPrecondition("Send If-Match or If-None-Match, not both.")
        case (false, true):
            guard ifMatch.count == 1, let base = version(inETag: ifMatch[0]) else {
                throw .badPrecondition("If-Match must name one server version as an ETag, e.g. If-Match: \"3\", not \(ifMatch.joined(separator: ", ").prefix(40)).")
            }
            return .basedOn(base)
        case (true, false):
            guard ifNoneMatch.count == 1, ifNoneMatch[0].trimmingCharacters(in: .whitespaces) == "*" else {
                throw .badPrecondition("If-None-Match must be *, for a recipe this client has never seen on the server.")
            }
            return .new
        }
    }

    /// The version in an ETag such as `"3"` (also `W/"3"` and a bare `3`): a whole number >= 1, else nil.
    static func version(inETag text: String) -> Int? {
        var tag = Substring(text.trimmingCharacters(in: .whitespaces))
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
        guard !tag.isEmpty, tag.utf8.allSatisfy({ (48...57).contains($0) }), let version = Int(tag), version >= 1 else { return nil }
        return version
    }
}

/// What the server holds for one recipe identifier.
public enum StoredRecipe: Sendable, Equatable {
    /// A live recipe at `version` whose stored document is `document` (the bytes as uploaded).
    case live(version: Int, document: [UInt8])
    /// A tombstone: the recipe was deleted, making `version`.
    case tombstone(version: Int)

    /// The stored version.
    public var version: Int {
        switch self {
        case .live(let version, _), .tombstone(let version): version
        }
    }
}

/// What a `PUT /v1/recipes/{uuid}` does, decided from its precondition, the body's version and what is stored.
public enum RecipePutDecision: Sendable, Equatable {
    /// Store the recipe as new at `version` (1): `201`.
    case create(version: Int)
    /// Replace the live recipe with `version` (base + 1): `200`.
    case update(version: Int)
    /// Re-create a deleted recipe at `version` (tombstone + 1): `201`.
    case recreate(version: Int)
    /// The retry of a write whose answer was lost: the same version and document are stored already; `200`, nothing written.
    case alreadyStored(version: Int)
    /// The precondition failed: `412 {"error":"stale","version":…,"deleted":…}`; nothing written.
    case stale(version: Int, deleted: Bool)
    /// Neither `If-Match` nor `If-None-Match`: `428`.
    case preconditionRequired
    /// The body's `version` is not base + 1 (1 for a new recipe): `422`.
    case wrongVersion(expected: Int)

    /// Decides a recipe PUT (docs/http-api.md); a pure function, tested from a table.
    ///
    /// Order: no precondition → 428; a body version that is not base + 1 → 422; the same version and document
    /// already stored → 200 (the retry of a lost answer); then the precondition against what is stored.
    /// `If-Match` on a recipe the server never had fails with version 0 (there is no version to match).
    public static func decide(_ precondition: WritePrecondition, bodyVersion: Int, document: [UInt8], stored: StoredRecipe?) -> RecipePutDecision {
        let expected: Int
        switch precondition {
        case .none: return .preconditionRequired
        case .new: expected = 1
        case .basedOn(let base): expected = base + 1
        }
        guard bodyVersion == expected else { return .wrongVersion(expected: expected) }
        if case .live(let version, let storedDocument)? = stored, version == bodyVersion, storedDocument == document {
            return .alreadyStored(version: version)
        }
        switch (precondition, stored) {
        case (.new, nil):
            return .create(version: 1)
        case (.new, .live(let version, _)?):
            return .stale(version: version, deleted: false)
        case (.new, .tombstone(let version)?):
            return .stale(version: version, deleted: true)
        case (.basedOn, nil):
            return .stale(version: 0, deleted: false)
        case (.basedOn(let base), .live(let version, _)?):
            return version == base ? .update(version: base + 1) : .stale(version: version, deleted: false)
        case (.basedOn(let base), .tombstone(let version)?):
            return version == base ? .recreate(version: base + 1) : .stale(version: version, deleted: true)
        case (.none, _):
            return .preconditionRequired
        }
    }
}

/// What a `DELETE /v1/recipes/{uuid}` does.
public enum RecipeDeleteDecision: Sendable, Equatable {
    /// Keep a tombstone at `version` (base + 1): `204`.
    case tombstone(version: Int)
    /// Already deleted (a tombstone at `version`), or never stored (nil): `204`, nothing written.
    case alreadyDeleted(version: Int?)
    /// The server has another version: `412`; nothing written.
    case stale(version: Int)
    /// No `If-Match`: `428`.
    case preconditionRequired

    /// Decides a recipe DELETE (docs/http-api.md); a pure function, tested from a table.
    ///
    /// Only `If-Match` applies: `If-None-Match: *` cannot delete anything and is answered `428` like no header.
    public static func decide(_ precondition: WritePrecondition, stored: StoredRecipe?) -> RecipeDeleteDecision {
        guard case .basedOn(let base) = precondition else { return .preconditionRequired }
        switch stored {
        case nil: return .alreadyDeleted(version: nil)
        case .tombstone(let version)?: return .alreadyDeleted(version: version)
        case .live(let version, _)?: return version == base ? .tombstone(version: base + 1) : .stale(version: version)
        }
    }
}

extension ServerError {
    /// 400: an `If-Match`/`If-None-Match` header the server cannot read.
    static func badPrecondition(_ message: String) -> ServerError { ServerError(status: .badRequest, code: "bad-precondition", message: message) }
}
