import Foundation
import Hummingbird
import NIOCore

extension ServerRoutes {
    /// The largest `POST /v1/images/missing` body accepted: 1000 names with room for whitespace.
    static let maxMissingQueryBytes = 256 << 10
    /// The most names one `POST /v1/images/missing` may ask about.
    static let maxMissingQueryNames = 1000

    /// `POST /v1/images/missing` `{"sha256":[…]}`: `{"missing":[…]}`, the names this server has no image of, in the
    /// order asked (a partial upload is not an image: it is missing).
    func missingImages(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        try Self.requireJSON(request)
        let data = try await jsonBody(request, context, limit: Self.maxMissingQueryBytes,
                                      tooLarge: ServerError(status: .contentTooLarge, code: "too-large",
                                                            message: "The body is larger than \(Self.maxMissingQueryBytes) bytes; ask about at most \(Self.maxMissingQueryNames) images at a time."))
        let names = try Self.missingQuery(data)
        let stored = try await database.storedImages(among: names)
        return Self.json(["missing": .array(names.filter { !stored.contains($0) }.map { .string($0) })])
    }

    /// The names of a `POST /v1/images/missing` body; a `400` saying what is wrong otherwise.
    static func missingQuery(_ data: Data) throws(ServerError) -> [String] {
        let problem = "The body must be {\"sha256\":[…]}: up to \(maxMissingQueryNames) image names, each 64 lowercase hex digits"
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let list = object["sha256"] as? [Any] else {
            throw .badPath(problem + ".")
        }
        guard list.count <= maxMissingQueryNames else { throw .badPath(problem + "; this one asks about \(list.count).") }
        var names: [String] = []
        for (index, item) in list.enumerated() {
            guard let name = item as? String, RecipeDocument.isSHA256(name) else {
                throw .badPath(problem + "; item \(index + 1) is not.")
            }
            names.append(name)
        }
        return names
    }

    /// `POST /v1/recipes/batch`: each write applied in order, each in its own transaction, exactly as its own `PUT` or
    /// `DELETE` would be; `200 {"results":[…]}`, one per write, in order.
    func recipeBatch(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        try Self.requireJSON(request)
        let data = try await jsonBody(request, context, limit: RecipeBatch.maxBytes,
                                      tooLarge: ServerError(status: .contentTooLarge, code: "too-large",
                                                            message: "The batch is larger than \(RecipeBatch.maxBytes) bytes; send fewer writes per batch."))
        let writes = try RecipeBatch.parse([UInt8](data))
        var results: [JSONAnswer] = []
        for write in writes {
            results.append(.object(await apply(write, authority: Self.authority(request), context)))
        }
        return Self.json(["results": .array(results)])
    }

    /// One write of a batch, answered as its own request would be: the members of a batch result.
    private func apply(_ write: BatchWrite, authority: String, _ context: ServerRequestContext) async -> [String: JSONAnswer] {
        do {
            let answer: RecipeWriteAnswer
            switch write.operation {
            case .put(let document):
                guard document.count <= Self.maxRecipeBytes else { throw recipeTooLarge() }
                answer = try await writeRecipe(
                    identifier: write.identifier, precondition: write.precondition, document: Data(document), authority: authority)
            case .delete:
                answer = try await removeRecipe(identifier: write.identifier, precondition: write.precondition)
            }
            return Self.batchResult(write.identifier, answer: answer)
        } catch let error as ServerError {
            return Self.batchResult(write.identifier, refusal: error)
        } catch {
            context.logger.error("POST /v1/recipes/batch: write of \(write.identifier) failed: \(String(reflecting: error))")
            return Self.batchResult(write.identifier, refusal: .internalStorage)
        }
    }

    /// The result of a write that was carried out: `identifier`, `status`, `version` (absent when a delete found no
    /// recipe) and `deleted`.
    static func batchResult(_ identifier: String, answer: RecipeWriteAnswer) -> [String: JSONAnswer] {
        var result: [String: JSONAnswer] = ["identifier": .string(identifier), "status": .integer(Int64(answer.status.code)),
                                            "deleted": .bool(answer.deleted)]
        if let version = answer.version { result["version"] = .integer(Int64(version)) }
        return result
    }

    /// The result of a refused write: `identifier`, `status` and the members of the error body its own request would
    /// have answered (`error`, `message`, and for a `412` `version` and `deleted`).
    static func batchResult(_ identifier: String, refusal: ServerError) -> [String: JSONAnswer] {
        var result: [String: JSONAnswer] = ["identifier": .string(identifier), "status": .integer(Int64(refusal.status.code)),
                                            "error": .string(refusal.code), "message": .string(refusal.message)]
        for (key, value) in refusal.extra { result[key] = value }
        return result
    }

    /// `415` unless the request says `Content-Type: application/json`.
    static func requireJSON(_ request: Request) throws(ServerError) {
        guard recipeContentTypes.contains(mediaType(request.headers)) else {
            throw ServerError(status: .unsupportedMediaType, code: "unsupported-media-type", message: "Send the body with Content-Type: application/json.")
        }
    }
}
