import Foundation
import Hummingbird
import NIOCore

extension ServerRoutes {
    // MARK: Images

    func sha256(_ context: ServerRequestContext) throws(ServerError) -> String {
        let sha = context.parameters.get("sha256") ?? ""
        guard RecipeDocument.isSHA256(sha) else {
            throw .badPath("The path must end in the image's SHA-256 as 64 lowercase hex digits.")
        }
        return sha
    }

    func headImage(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let sha = try sha256(context)
        guard let info = try await database.image(sha256: sha) else { throw ServerError.notFound("No image \(sha) on this server.") }
        return Response(status: .ok, headers: Self.imageHeaders(info, sha256: sha))
    }

    func getImage(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let sha = try sha256(context)
        guard let info = try await database.image(sha256: sha) else { throw ServerError.notFound("No image \(sha) on this server.") }
        // Streamed from the file a chunk at a time (Hummingbird's non-blocking file reads), never held in memory whole.
        let body = try await FileIO().loadFile(path: images.path(sha256: sha), context: context)
        return Response(status: .ok, headers: Self.imageHeaders(info, sha256: sha), body: body)
    }

    /// The headers of an image answer: its type, length and `ETag: "<sha256>"`.
    static func imageHeaders(_ info: ServerDatabase.ImageInfo, sha256: String) -> HTTPFields {
        [.contentType: info.contentType, .contentLength: String(info.bytes), .eTag: "\"\(sha256)\""]
    }

    func putImage(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
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
    static func incompleteBody(received: Int64, of length: Int64) -> ServerError {
        ServerError(status: .badRequest, code: "incomplete-body",
                    message: "The body ended after \(received) of \(length) bytes; nothing was stored. Send it again.")
    }

    func tooLarge() -> ServerError {
        ServerError(status: .contentTooLarge, code: "too-large",
                    message: "The image is larger than this server accepts (\(maxImageBytes) bytes); use a smaller image.")
    }
}
