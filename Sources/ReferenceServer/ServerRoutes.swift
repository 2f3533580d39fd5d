import Foundation
import Hummingbird
import NIOCore

/// The handlers of the HTTP contract (docs/http-api.md) over the database and the image files.
struct ServerRoutes: Sendable {
    /// Recipes, the changes feed and the image index.
    let database: ServerDatabase
    /// Wakes the long polls of the changes feed.
    let changeSignal: ChangeSignal
    /// Image files.
    let images: ImageStore
    /// The partial uploads kept for resumption.
    let partials: PartialUploads
    /// The largest image body accepted.
    let maxImageBytes: Int64
    /// The optional requests answered.
    let features: Set<ServerFeature>
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
        router.get("/v1/health") { _, _ in health() }
        router.head("/v1/images/:sha256") { request, context in try await headImage(request, context) }
        router.get("/v1/images/:sha256") { request, context in try await getImage(request, context) }
        router.put("/v1/images/:sha256") { request, context in try await putImage(request, context) }
        router.get("/v1/recipes") { request, _ in try await listRecipes(request) }
        router.get("/v1/changes") { request, _ in try await changes(request) }
        router.get("/v1/recipes/:uuid") { request, context in try await getRecipe(request, context) }
        router.put("/v1/recipes/:uuid") { request, context in try await putRecipe(request, context) }
        router.delete("/v1/recipes/:uuid") { request, context in try await deleteRecipe(request, context) }
        if features.contains(.imagesMissing) {
            router.post("/v1/images/missing") { request, context in try await missingImages(request, context) }
        }
        if features.contains(.recipesBatch) {
            router.post("/v1/recipes/batch") { request, context in try await recipeBatch(request, context) }
        }
        if features.contains(.resumableImages) {
            router.patch("/v1/images/:sha256") { request, context in try await patchImage(request, context) }
        }
    }

    /// `GET /v1/health`: `{"status":"ok","server":…}` and, when any optional request is on, `"features":[…]` by name.
    func health() -> Response {
        var answer: [String: JSONAnswer] = ["status": .string("ok"), "server": .string(database.serverID)]
        if !features.isEmpty { answer["features"] = .array(features.sorted().map { .string($0.rawValue) }) }
        return Self.json(answer)
    }

    // MARK: JSON

    /// A JSON answer (keys sorted, slashes not escaped).
    static func json(_ object: [String: JSONAnswer], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: JSONAnswer.object(object).buffer))
    }
}
