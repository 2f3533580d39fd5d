import Foundation
import Transport

/// The requests of a Mealie 2.x server's REST API that a sync needs, built as plain values (docs/mealie.md lists each
/// with the answers this version gives).
///
/// Every recipe is addressed by its `id` (a UUID that survives renames), never by its slug, except for the image
/// upload, which Mealie answers `404` when addressed by id.
public struct MealieServer: Sendable, Equatable {
    /// The base URL, without a trailing slash: the API is under `<baseURL>/api`.
    public let baseURL: String

    /// Creates the API of the Mealie at `baseURL` (`http://` or `https://`, a host, an optional port from 1 to 65535
    /// and an optional path prefix, without credentials, query or fragment); nil for anything else.
    public init?(baseURL: String) {
        var base = baseURL.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        guard let components = URLComponents(string: base), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.user == nil, components.password == nil, components.query == nil, components.fragment == nil,
              components.port.map({ (1...65_535).contains($0) }) ?? true
        else { return nil }
        self.baseURL = base
    }

    /// How long a small answer (a recipe, a page of the list, an acknowledgement) may take once it has started.
    public static let answerDeadline: Duration = .seconds(30)

    /// The most recipes asked for in one page of the list: a page of summaries is about 0.7 KB a recipe
    /// (docs/mealie.md, "Listing every id"), so 1,000 stay far below the transport's 16 MiB answer limit.
    public static let maxPageSize = 1000

    // MARK: Identity

    /// `GET /api/app/about`: answered without a token by every Mealie (`{"production":…,"version":…}`); tells a
    /// Mealie from another server at `server.url`.
    public func about() -> HTTPRequest {
        HTTPRequest(method: .get, url: "\(baseURL)/api/app/about", answerDeadline: Self.answerDeadline)
    }

    /// `GET /api/groups/self`: the token's group, whose `id` names this Mealie's recipe collection (a new id means
    /// another or a reset Mealie); `401` when the token is refused. Chosen over `/api/users/self`, whose answer
    /// lists the user's API tokens.
    public func group() -> HTTPRequest {
        HTTPRequest(method: .get, url: "\(baseURL)/api/groups/self", answerDeadline: Self.answerDeadline)
    }

    // MARK: Recipes

    /// `GET /api/recipes/{id}`: the whole recipe (`200`), or `404` `{"detail":{"message":"No Entry Found",…}}`.
    public func recipe(id: UUID) -> HTTPRequest {
        HTTPRequest(method: .get, url: recipeURL(id), answerDeadline: Self.answerDeadline)
    }

    /// `POST /api/recipes/create/zip` with `form` (from `RecipeArchive.form`): creates the recipe under the `id` its
    /// JSON names. `201` with the slug as a bare JSON string; `500` when that id exists already (the retry of an
    /// import that landed: `RecipeCreation` reads it back), or when Mealie could not read the document.
    public func importRecipe(_ form: MultipartForm) -> HTTPRequest {
        HTTPRequest(method: .post, url: "\(baseURL)/api/recipes/create/zip",
                    body: .data(form.body, contentType: form.contentType), answerDeadline: Self.answerDeadline)
    }

    /// `PUT /api/recipes/{id}` with `document`, the whole recipe as read from Mealie with the sync's changes made to
    /// it (never a partial body: Mealie resets every field a `PUT` leaves out). `200` with the recipe as stored.
    public func updateRecipe(id: UUID, document: Data) -> HTTPRequest {
        HTTPRequest(method: .put, url: recipeURL(id), body: .data(document, contentType: "application/json"),
                    answerDeadline: Self.answerDeadline)
    }

    /// `PATCH /api/recipes/{id}` with `body`, only the top-level fields to change (`MealieMapping.write`): Mealie
    /// changes only the keys sent. `200` with the recipe as stored.
    public func patchRecipe(id: UUID, body: Data) -> HTTPRequest {
        HTTPRequest(method: .patch, url: recipeURL(id), body: .data(body, contentType: "application/json"),
                    answerDeadline: Self.answerDeadline)
    }

    /// `DELETE /api/recipes/{id}`: `200` with the deleted recipe; `404` when it is already gone. A hard delete.
    public func deleteRecipe(id: UUID) -> HTTPRequest {
        HTTPRequest(method: .delete, url: recipeURL(id), answerDeadline: Self.answerDeadline)
    }

    /// `PUT /api/recipes/{slug}/image` with `form` (from `MultipartForm.imageUpload`): `200 {"image":"<key>"}`.
    /// Mealie re-encodes the image as WebP and moves the recipe's `updatedAt`.
    public func uploadImage(slug: String, _ form: MultipartForm) -> HTTPRequest {
        HTTPRequest(method: .put, url: "\(baseURL)/api/recipes/\(Self.pathSegment(slug))/image",
                    body: .data(form.body, contentType: form.contentType), answerDeadline: Self.answerDeadline)
    }

    /// The URL of recipe `id`'s image as Mealie serves it (WebP, no token needed).
    public func imageURL(id: UUID) -> String {
        "\(baseURL)/api/media/recipes/\(id.lowercased)/images/original.webp"
    }

    /// `GET` of recipe `id`'s image (`200 image/webp`; `404` when it has none).
    public func image(id: UUID) -> HTTPRequest {
        HTTPRequest(method: .get, url: imageURL(id: id))
    }

    /// A ranged `GET` of the image's first byte (`206` with its `ETag`; Mealie's media route answers no `HEAD`, `405`,
    /// and no `If-None-Match`): whether the file was written again since, for the price of one byte.
    public func imageProbe(id: UUID) -> HTTPRequest {
        HTTPRequest(method: .get, url: imageURL(id: id), headers: ["Range": "bytes=0-0"], answerDeadline: Self.answerDeadline)
    }

    // MARK: Lists

    /// A page of the recipes written after `cursor` (all of them when nil), oldest write first: see `ChangeFeed`.
    public func changes(after cursor: ChangeCursor?, pageSize: Int) -> HTTPRequest {
        var query = ["orderBy": "updated_at:asc,id:asc", "perPage": String(Self.clamped(pageSize)), "page": "1"]
        if let cursor { query["queryFilter"] = ChangeFeed.queryFilter(after: cursor) }
        return listRequest(path: "/api/recipes", query: query)
    }

    /// A page of every recipe in id order, after `id` (from the first when nil): the listing that finds deletions
    /// (see `DeletionCheck`). Keyed on the id, not on a page number, so a recipe deleted meanwhile never shifts
    /// another one out of sight.
    public func recipeIDs(after id: UUID?, pageSize: Int) -> HTTPRequest {
        var query = ["orderBy": "id:asc", "perPage": String(Self.clamped(pageSize)), "page": "1"]
        if let id { query["queryFilter"] = "id > \"\(id.lowercased)\"" }
        return listRequest(path: "/api/recipes", query: query)
    }

    /// The number of recipes in the group, as the `total` of a one-recipe page.
    public func recipeCount() -> HTTPRequest {
        listRequest(path: "/api/recipes", query: ["perPage": "1", "page": "1", "orderBy": "id:asc"])
    }

    /// Every tag, category or tool of the group in one page (`perPage=-1`; a group has tens to hundreds).
    public func organizers(_ kind: OrganizerKind) -> HTTPRequest {
        listRequest(path: "/api/organizers/\(kind.rawValue)", query: ["perPage": "-1", "page": "1", "orderBy": "name:asc"])
    }

    /// `POST /api/organizers/{kind}` `{"name":…}`: `201` with the new tag, category or tool; a `500` (tags) or `400`
    /// (tools) when one with the same slug exists (docs/mealie.md, "Tags, categories and tools").
    public func createOrganizer(_ kind: OrganizerKind, name: String) -> HTTPRequest {
        let body = (try? JSONSerialization.data(withJSONObject: ["name": name])) ?? Data("{}".utf8)
        return HTTPRequest(method: .post, url: "\(baseURL)/api/organizers/\(kind.rawValue)",
                           body: .data(body, contentType: "application/json"), answerDeadline: Self.answerDeadline)
    }

    // MARK: Parts

    private func recipeURL(_ id: UUID) -> String { "\(baseURL)/api/recipes/\(id.lowercased)" }

    private func listRequest(path: String, query: [String: String]) -> HTTPRequest {
        let items = query.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.queryValue($0.value))" }
        return HTTPRequest(method: .get, url: baseURL + path + "?" + items.joined(separator: "&"),
                           answerDeadline: Self.answerDeadline)
    }

    private static func clamped(_ pageSize: Int) -> Int { min(max(pageSize, 1), maxPageSize) }

    /// Characters left as they are in a query value or a path segment: RFC 3986's unreserved set.
    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}

/// The three kinds of organizer a Mealie recipe links to, by their path under `/api/organizers`.
public enum OrganizerKind: String, Sendable, CaseIterable {
    /// `tags` (schema.org `keywords`).
    case tags
    /// `categories` (schema.org `recipeCategory`).
    case categories
    /// `tools` (schema.org `tool`).
    case tools
}

extension UUID {
    /// The UUID in lower case, as Mealie writes ids.
    var lowercased: String { uuidString.lowercased() }
}
