import Foundation
import Hummingbird
import NIOCore

/// The handlers of the HTTP contract (CONTRACT section 3) over the database and the image files.
struct ServerRoutes: Sendable {
    /// Recipes, the changes feed and the image index.
    let database: ServerDatabase
    /// Wakes the long polls of the changes feed.
    let changeSignal: ChangeSignal
    /// Image files.
    let images: ImageStore
    /// The largest image body accepted.
    let maxImageBytes: Int64
    /// The largest recipe document accepted.
    static let maxRecipeBytes = 1 << 20
    /// The media types a recipe document may have.
    static let recipeContentTypes: Set<String> = ["application/json", "application/ld+json"]

    /// The request's `Content-Type` without parameters, lower-cased (empty when absent).
    static func mediaType(_ headers: HTTPFields) -> String {
        headers[.contentType]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    /// Registers every route on the router.
    func register(on router: Router<ServerRequestContext>) {
        router.get("/v1/health") { _, _ in Self.json(["status": .string("ok"), "server": .string(database.serverID)]) }
        router.head("/v1/images/:sha256") { request, context in try await headImage(request, context) }
        router.get("/v1/images/:sha256") { request, context in try await getImage(request, context) }
        router.put("/v1/images/:sha256") { request, context in try await putImage(request, context) }
        router.get("/v1/recipes") { request, _ in try await listRecipes(request) }
        router.get("/v1/changes") { request, _ in try await changes(request) }
        router.get("/v1/recipes/:uuid") { request, context in try await getRecipe(request, context) }
        router.put("/v1/recipes/:uuid") { request, context in try await putRecipe(request, context) }
        router.delete("/v1/recipes/:uuid") { request, context in try await deleteRecipe(request, context) }
    }

    // MARK: JSON

    /// A JSON answer (keys sorted, slashes not escaped).
    static func json(_ object: [String: JSONAnswer], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: JSONAnswer.object(object).buffer))
    }
}
