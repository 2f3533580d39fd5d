import Foundation
import Hummingbird
import NIOCore

extension ServerRoutes {
    /// The recipe UUID of the path.
    func identifier(_ context: ServerRequestContext) throws(ServerError) -> String {
        let text = context.parameters.get("uuid") ?? ""
        guard UUID(uuidString: text) != nil else {
            throw .badPath("The path must end in the recipe's UUID, e.g. 3F2504E0-4F89-11D3-9A0C-0305E82C3301.")
        }
        return text
    }

    /// `PUT /v1/recipes/{uuid}`: a conditional write (`RecipePutDecision`).
    func putRecipe(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let identifier = try identifier(context)
        let precondition = try WritePrecondition.parse(request.headers)
        guard precondition != .none else { throw ServerError.preconditionRequired(for: "PUT") }
        guard Self.recipeContentTypes.contains(Self.mediaType(request.headers)) else {
            throw ServerError(status: .unsupportedMediaType, code: "unsupported-media-type",
                              message: "Send the recipe with Content-Type: application/json.")
        }
        let data = try await recipeBody(request, context)
        let recipe = try RecipeDocument.validate(data, pathIdentifier: identifier, authority: request.head.authority ?? "127.0.0.1")
        switch try await database.putRecipe(recipe, document: data, precondition: precondition) {
        case .unknownImage(let sha):
            throw ServerError.invalid("The recipe's image \(sha) is not on this server; upload the image first.")
        case .decided(let decision, let sequence):
            if let sequence { changeSignal.published(sequence) }
            switch decision {
            case .create(let version), .recreate(let version):
                return Self.written(recipe.identifier, version: version, status: .created)
            case .update(let version), .alreadyStored(let version):
                return Self.written(recipe.identifier, version: version, status: .ok)
            case .stale(let version, let deleted):
                throw ServerError.stale(version: version, deleted: deleted)
            case .wrongVersion(let expected):
                throw ServerError.invalid("\"version\" is \(recipe.version) but must be \(expected): the base version of If-Match + 1, or 1 with If-None-Match: *.")
            case .preconditionRequired:
                throw ServerError.preconditionRequired(for: "PUT")
            }
        }
    }

    /// Reads a recipe body (at most `maxRecipeBytes`, exactly its `Content-Length`).
    private func recipeBody(_ request: Request, _ context: ServerRequestContext) async throws -> Data {
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > Self.maxRecipeBytes { throw recipeTooLarge() }
        var buffer = ByteBuffer()
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
        return Data(buffer: buffer)
    }

    private func recipeTooLarge() -> ServerError {
        ServerError(status: .contentTooLarge, code: "too-large",
                    message: "The recipe document is larger than \(Self.maxRecipeBytes) bytes; shorten it.")
    }

    /// `GET /v1/recipes/{uuid}`: the document with its `ETag`, `410` for a tombstone, `404` for a recipe never stored.
    func getRecipe(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let identifier = try identifier(context)
        switch try await database.recipe(identifier: identifier) {
        case nil:
            throw ServerError.notFound("No recipe \(identifier) on this server.")
        case .tombstone(let version)?:
            throw ServerError(status: .gone, code: "deleted", message: "Recipe \(identifier) was deleted on this server (version \(version)).",
                              extra: ["version": .integer(Int64(version))], headers: [.eTag: Self.eTag(version)])
        case .live(let version, let document)?:
            return Response(status: .ok, headers: [.contentType: "application/json", .eTag: Self.eTag(version)],
                            body: .init(byteBuffer: ByteBuffer(bytes: document)))
        }
    }

    /// `DELETE /v1/recipes/{uuid}`: a conditional delete (`RecipeDeleteDecision`).
    func deleteRecipe(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let identifier = try identifier(context)
        let precondition = try WritePrecondition.parse(request.headers)
        let (decision, sequence) = try await database.deleteRecipe(identifier: identifier, precondition: precondition)
        if let sequence { changeSignal.published(sequence) }
        switch decision {
        case .tombstone(let version), .alreadyDeleted(let version?):
            return Response(status: .noContent, headers: [.eTag: Self.eTag(version)])
        case .alreadyDeleted(nil):
            return Response(status: .noContent)
        case .stale(let version):
            throw ServerError.stale(version: version, deleted: false)
        case .preconditionRequired:
            throw ServerError.preconditionRequired(for: "DELETE")
        }
    }

    /// The answer to a stored (or already stored) write: `{"identifier","version"}` and its `ETag`.
    static func written(_ identifier: String, version: Int, status: HTTPResponse.Status) -> Response {
        var response = json(["identifier": .string(identifier), "version": .integer(Int64(version))], status: status)
        response.headers[.eTag] = eTag(version)
        return response
    }

    /// A version as an entity tag: `"7"`.
    static func eTag(_ version: Int) -> String { "\"\(version)\"" }
}

extension ServerError {
    /// 412: the write's precondition failed; the body names the server's version and whether it is a tombstone.
    static func stale(version: Int, deleted: Bool) -> ServerError {
        let message = deleted
            ? "The recipe was deleted on the server at version \(version); read it (GET answers 410) and decide, then write again with If-Match: \"\(version)\"."
            : version == 0
                ? "The server has no version of this recipe; send it as new with If-None-Match: *."
                : "The server has version \(version) of this recipe, which this write was not based on; read it, merge, and write again with If-Match: \"\(version)\"."
        var error = ServerError(status: .preconditionFailed, code: "stale", message: message,
                                extra: ["version": .integer(Int64(version)), "deleted": .bool(deleted)])
        if version > 0 { error.headers[.eTag] = ServerRoutes.eTag(version) }
        return error
    }

    /// 428: a write without `If-Match` or `If-None-Match`.
    static func preconditionRequired(for method: String) -> ServerError {
        let what = method == "DELETE"
            ? "Send DELETE with If-Match: \"<version>\", the server version this client last saw."
            : "Send PUT with If-Match: \"<version>\" (the server version the draft is based on) or If-None-Match: * (a recipe new to the server)."
        return ServerError(status: .preconditionRequired, code: "precondition-required", message: what)
    }
}
