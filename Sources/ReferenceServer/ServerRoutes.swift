import Foundation
import Hummingbird
import NIOCore

/// The handlers of the HTTP contract (CONTRACT section 3) over the database and the image files.
struct ServerRoutes: Sendable {
    /// Recipes and the image index.
    let database: ServerDatabase
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
        router.get("/v1/health") { _, _ in Self.json(["status": .string("ok")]) }
        router.head("/v1/images/:sha256") { request, context in try await headImage(request, context) }
        router.get("/v1/images/:sha256") { request, context in try await getImage(request, context) }
        router.put("/v1/images/:sha256") { request, context in try await putImage(request, context) }
        router.get("/v1/recipes") { _, _ in try await listRecipes() }
        router.get("/v1/recipes/:uuid") { request, context in try await getRecipe(request, context) }
        router.put("/v1/recipes/:uuid") { request, context in try await putRecipe(request, context) }
        router.delete("/v1/recipes/:uuid") { request, context in try await deleteRecipe(request, context) }
    }

    // MARK: Images

    private func sha256(_ context: ServerRequestContext) throws(ServerError) -> String {
        let sha = context.parameters.get("sha256") ?? ""
        guard RecipeDocument.isSHA256(sha) else {
            throw .badPath("The path must end in the image's SHA-256 as 64 lowercase hex digits.")
        }
        return sha
    }

    private func headImage(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let sha = try sha256(context)
        guard let info = try await database.image(sha256: sha) else { throw ServerError.notFound("No image \(sha) on this server.") }
        return Response(status: .ok, headers: Self.imageHeaders(info, sha256: sha))
    }

    private func getImage(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let sha = try sha256(context)
        guard let info = try await database.image(sha256: sha) else { throw ServerError.notFound("No image \(sha) on this server.") }
        let body = try await FileIO().loadFile(path: images.path(sha256: sha), context: context)
        return Response(status: .ok, headers: Self.imageHeaders(info, sha256: sha), body: body)
    }

    /// The headers of an image answer (`HEAD` and `GET`): its type, its length and `ETag: "<sha256>"`, by which a
    /// client tells the server's "I have it" from any other page answering 200.
    static func imageHeaders(_ info: ServerDatabase.ImageInfo, sha256: String) -> HTTPFields {
        [.contentType: info.contentType, .contentLength: String(info.bytes), .eTag: "\"\(sha256)\""]
    }

    private func putImage(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let sha = try sha256(context)
        let contentType = Self.mediaType(request.headers)
        guard ImageStore.contentTypes.contains(contentType) else {
            throw ServerError(status: .unsupportedMediaType, code: "unsupported-media-type",
                              message: "Content-Type must be image/jpeg, image/png, image/gif or image/webp, not \"\(contentType.prefix(80))\".")
        }
        guard let lengthText = request.headers[.contentLength], let length = Int64(lengthText), length >= 0 else {
            throw ServerError(status: .lengthRequired, code: "length-required",
                              message: "Send the image with a Content-Length header (chunked uploads are not accepted).")
        }
        guard length <= maxImageBytes else { throw tooLarge() }

        let upload = images.beginUpload(expectedBytes: length)
        do {
            for try await chunk in request.body {
                context.record?.received(chunk.readableBytes)
                guard upload.bytes + Int64(chunk.readableBytes) <= maxImageBytes else { throw tooLarge() }
                try await upload.append(chunk)
            }
        } catch let error as ServerError {
            throw error
        } catch let timeout as RequestBodyTimedOut {
            context.record?.bodyEnded()
            throw ServerError.bodyTimedOut(timeout, received: upload.bytes, of: length)
        } catch {
            // The body stream failed (the connection ended mid-body): the same answer as a body that ended early.
            context.record?.bodyEnded()
            throw Self.incompleteBody(received: upload.bytes, of: length)
        }
        context.record?.bodyEnded()
        guard upload.bytes == length else {
            // The client went away mid-body: nothing is stored (the partial file is removed with `upload`).
            throw Self.incompleteBody(received: upload.bytes, of: length)
        }
        let digest = upload.digest()
        guard digest == sha else {
            throw ServerError(status: .unprocessableContent, code: "sha256-mismatch",
                              message: "The body's SHA-256 is \(digest), not the \(sha) of the path; nothing was stored. Check the file did not change while uploading.")
        }
        try await upload.commit(to: images.path(sha256: sha))
        let created = try await database.recordImage(sha256: sha, contentType: contentType, bytes: length)
        let host = request.head.authority ?? "127.0.0.1"
        return Self.json(["sha256": .string(sha), "url": .string("http://\(host)/v1/images/\(sha)"), "bytes": .integer(length)],
                         status: created ? .created : .ok)
    }

    /// 400: the body ended (or its stream failed) before `length` bytes arrived; nothing was stored.
    private static func incompleteBody(received: Int64, of length: Int64) -> ServerError {
        ServerError(status: .badRequest, code: "incomplete-body",
                    message: "The body ended after \(received) of \(length) bytes; nothing was stored. Send it again.")
    }

    private func tooLarge() -> ServerError {
        ServerError(status: .contentTooLarge, code: "too-large",
                    message: "The image is larger than this server accepts (\(maxImageBytes) bytes); use a smaller image.")
    }

    // MARK: Recipes

    private func identifier(_ context: ServerRequestContext) throws(ServerError) -> String {
        let text = context.parameters.get("uuid") ?? ""
        guard UUID(uuidString: text) != nil else {
            throw .badPath("The path must end in the recipe's UUID, e.g. 3F2504E0-4F89-11D3-9A0C-0305E82C3301.")
        }
        return text
    }

    private func putRecipe(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let identifier = try identifier(context)
        guard Self.recipeContentTypes.contains(Self.mediaType(request.headers)) else {
            throw ServerError(status: .unsupportedMediaType, code: "unsupported-media-type",
                              message: "Send the recipe with Content-Type: application/json.")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > Self.maxRecipeBytes { throw recipeTooLarge() }
        var buffer = ByteBuffer()
        let length = request.headers[.contentLength].flatMap(Int.init)
        do {
            for try await chunk in request.body {
                context.record?.received(chunk.readableBytes)
                guard buffer.readableBytes + chunk.readableBytes <= Self.maxRecipeBytes else { throw recipeTooLarge() }
                var chunk = chunk
                buffer.writeBuffer(&chunk)
            }
        } catch let error as ServerError {
            throw error
        } catch let timeout as RequestBodyTimedOut {
            context.record?.bodyEnded()
            throw ServerError.bodyTimedOut(timeout, received: Int64(buffer.readableBytes), of: length.map(Int64.init))
        } catch {
            // The body stream failed (the connection ended mid-body): the same answer as a body that ended early.
            context.record?.bodyEnded()
            throw Self.incompleteBody(received: Int64(buffer.readableBytes), of: Int64(length ?? buffer.readableBytes))
        }
        context.record?.bodyEnded()
        if let length, buffer.readableBytes != length {
            throw Self.incompleteBody(received: Int64(buffer.readableBytes), of: Int64(length))
        }
        let data = Data(buffer: buffer)
        let recipe = try RecipeDocument.validate(data, pathIdentifier: identifier)
        switch try await database.putRecipe(recipe, document: data) {
        case .created:
            return Self.json(["identifier": .string(recipe.identifier), "version": .integer(Int64(recipe.version))], status: .created)
        case .updated:
            return Self.json(["identifier": .string(recipe.identifier), "version": .integer(Int64(recipe.version))])
        case .stale(let stored):
            throw ServerError(status: .conflict, code: "stale-version",
                              message: "The server already has version \(stored) of this recipe, newer than \(recipe.version).",
                              extra: ["version": stored])
        case .unknownImage(let sha):
            throw ServerError.invalid("The recipe's image \(sha) is not on this server; upload the image first.")
        }
    }

    private func recipeTooLarge() -> ServerError {
        ServerError(status: .contentTooLarge, code: "too-large",
                    message: "The recipe document is larger than \(Self.maxRecipeBytes) bytes; shorten it.")
    }

    private func getRecipe(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let identifier = try identifier(context)
        guard let document = try await database.recipeDocument(identifier: identifier) else {
            throw ServerError.notFound("No recipe \(identifier) on this server.")
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: document)))
    }

    private func listRecipes() async throws -> Response {
        let recipes = try await database.recipes()
        let items: [JSONAnswer] = recipes.map { summary in
            var item: [String: JSONAnswer] = ["identifier": .string(summary.identifier), "version": .integer(Int64(summary.version)),
                                              "name": .string(summary.name)]
            if let date = summary.dateModified { item["dateModified"] = .string(date) }
            return .object(item)
        }
        return Self.json(["recipes": .array(items)])
    }

    private func deleteRecipe(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let identifier = try identifier(context)
        try await database.deleteRecipe(identifier: identifier)
        return Response(status: .noContent)
    }

    // MARK: JSON

    /// A JSON answer (keys sorted, slashes not escaped).
    static func json(_ object: [String: JSONAnswer], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: JSONAnswer.object(object).buffer))
    }
}
