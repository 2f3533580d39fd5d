import Foundation
import MealieAPI
import Transport

/// A test's way into the shared Mealie: its requests (`MealieServer`) sent with the admin token through the project's
/// own HTTP client, and the steps the tests repeat — a recipe created under a chosen id, read as JSON, written back.
///
/// Tests share one Mealie, so each works on recipes it made (fresh ids and names) and never assumes the whole list.
public struct MealieSession: Sendable {
    /// The Mealie.
    public let instance: MealiePeer.Instance
    /// Its requests.
    public let server: MealieServer
    /// The client, with the token.
    public let client: HTTPClient

    /// A session on `instance`, or on the shared Mealie; `url` replaces the address the requests go to (a proxy in
    /// front of it).
    public init(instance: MealiePeer.Instance, url: String? = nil) throws {
        self.instance = instance
        guard let server = MealieServer(baseURL: url ?? instance.url) else {
            throw MealiePeer.PeerError(message: "not a base URL: \(url ?? instance.url)")
        }
        self.server = server
        client = try HTTPClient(configuration: HTTPClientConfiguration(
            userAgent: "recipes/test", credentials: .of(instance.token, at: url ?? instance.url), connectTimeout: .seconds(10), lowSpeedTime: .seconds(60)))
    }

    /// A session on the shared Mealie (started at the first call).
    public static func shared(url: String? = nil) async throws -> MealieSession {
        try MealieSession(instance: try await MealiePeer.shared(), url: url)
    }

    /// Sends `request`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await client.send(request)
    }

    /// A recipe's JSON as Mealie answers `GET /api/recipes/{id}` (nil when it has none).
    public func recipeJSON(id: UUID) async throws -> [String: Any]? {
        let response = try await send(server.recipe(id: id))
        guard response.status == 200 else { return nil }
        return try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
    }

    /// Creates a recipe under `id` through the zip import, with `fields` beside its id and name (default: one
    /// ingredient and one step, so that Mealie adds none of its own), and returns its stamp.
    public func createRecipe(id: UUID = UUID(), name: String, fields: [String: Any] = [:]) async throws -> RecipeStamp {
        var document: [String: Any] = [
            "id": id.uuidString.lowercased(), "name": name,
            "recipeIngredient": [["note": "1 tomato"]], "recipeInstructions": [["text": "Chop."]],
        ]
        document.merge(fields) { _, new in new }
        let json = try JSONSerialization.data(withJSONObject: document)
        var random = SystemRandomNumberGenerator()
        guard let form = MultipartForm.recipeImport(RecipeArchive.zip(recipeJSON: json),
                                                    boundary: MultipartForm.randomBoundary(using: &random))
        else { throw MealiePeer.PeerError(message: "the boundary occurs in the archive") }
        let response = try await send(server.importRecipe(form))
        guard response.status == 201 else {
            throw MealiePeer.PeerError(message: "the import of \(name) answered HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return try await stamp(id: id)
    }

    /// The stamp of recipe `id` as Mealie has it now.
    public func stamp(id: UUID) async throws -> RecipeStamp {
        let response = try await send(server.recipe(id: id))
        guard let stamp = try MealieAnswer.recipe(response, id: id).get() else {
            throw MealiePeer.PeerError(message: "Mealie has no recipe \(id)")
        }
        return stamp
    }

    /// Writes recipe `id` back whole (GET, `change`, PUT), as the sync does, and returns the stamp of the answer.
    public func edit(id: UUID, _ change: (inout [String: Any]) -> Void) async throws -> RecipeStamp {
        guard var recipe = try await recipeJSON(id: id) else { throw MealiePeer.PeerError(message: "Mealie has no recipe \(id)") }
        change(&recipe)
        let response = try await send(server.updateRecipe(id: id, document: try JSONSerialization.data(withJSONObject: recipe)))
        return try MealieAnswer.update(response, id: id).get()
    }

    /// How many recipes with this exact name Mealie lists (a duplicate made by a retry would be `"<name> (1)"`, so
    /// callers also count names with that prefix).
    public func recipes(named prefix: String) async throws -> [String] {
        let query = "name LIKE \"\(prefix)%\""
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let url = "\(server.baseURL)/api/recipes?perPage=-1&queryFilter=\(query.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")"
        let response = try await send(HTTPRequest(method: .get, url: url))
        guard response.status == 200,
              let page = try JSONSerialization.jsonObject(with: response.body) as? [String: Any],
              let items = page["items"] as? [[String: Any]]
        else { throw MealiePeer.PeerError(message: "the list by name answered HTTP \(response.status)") }
        return items.compactMap { $0["name"] as? String }
    }
}
