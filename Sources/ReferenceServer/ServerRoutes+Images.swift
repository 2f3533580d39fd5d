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

    /// `HEAD /v1/images/{sha256}`: `200` for a stored image; `404` otherwise, with `Upload-Offset` (the bytes kept) when a
    /// partial upload of it is kept (`resumable-images`).
    func headImage(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let sha = try sha256(context)
        guard let info = try await database.image(sha256: sha) else {
            var error = ServerError.notFound("No image \(sha) on this server.")
            if features.contains(.resumableImages), let offset = try await partials.offset(sha) {
                error.headers[.uploadOffset] = String(offset)
                error.headers[.uploadComplete] = "?0"
                error.headers[.cacheControl] = "no-store"
            }
            throw error
        }
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
            let kept = await keepInterrupted(upload, sha256: sha, contentType: contentType, length: length, context)
            throw ServerError.bodyTimedOut(timeout, received: upload.bytes, of: length).keeping(kept)
        } catch {
            // The body stream failed (the connection ended mid-body): the same answer as a body that ended early.
            context.record?.bodyEnded()
            let kept = await keepInterrupted(upload, sha256: sha, contentType: contentType, length: length, context)
            throw Self.incompleteBody(received: upload.bytes, of: length).keeping(kept)
        }
        context.record?.bodyEnded()
        guard upload.bytes == length else {
            // The client went away mid-body: no image is stored (what arrived is kept as a partial upload, or removed
            // with `upload`).
            let kept = await keepInterrupted(upload, sha256: sha, contentType: contentType, length: length, context)
            throw Self.incompleteBody(received: upload.bytes, of: length).keeping(kept)
        }
        let digest = upload.digest()
        guard digest == sha else {
            throw ServerError(status: .unprocessableContent, code: "sha256-mismatch",
                              message: "The body's SHA-256 is \(digest), not the \(sha) of the path; nothing was stored. Check the file did not change while uploading.")
        }
        try await upload.commit(to: images.path(sha256: sha))
        let created = try await database.recordImage(sha256: sha, contentType: contentType, bytes: length)
        if features.contains(.resumableImages) { try await partials.dropStored(sha) }
        return Self.imageAnswer(request, sha256: sha, bytes: length, created: created)
    }

    /// The answer to an image stored (`201`) or already stored (`200`): `{"sha256","url","bytes"}`, `url` built from the
    /// request's `Host`.
    static func imageAnswer(_ request: Request, sha256 sha: String, bytes: Int64, created: Bool) -> Response {
        let host = request.head.authority ?? "127.0.0.1"
        return json(["sha256": .string(sha), "url": .string("http://\(host)/v1/images/\(sha)"), "bytes": .integer(bytes)],
                    status: created ? .created : .ok)
    }

    /// After an image `PUT` whose body was cut: keeps what arrived as the image's partial upload when
    /// `resumable-images` is on; says whether it did. A failure to keep it is logged and leaves nothing behind.
    private func keepInterrupted(_ upload: ImageUpload, sha256 sha: String, contentType: String, length: Int64,
                                 _ context: ServerRequestContext) async -> Bool {
        guard features.contains(.resumableImages), upload.bytes > 0, upload.bytes < length else { return false }
        do {
            guard let path = try await upload.keep() else { return false }
            try await partials.keep(path, sha256: sha, contentType: contentType, length: length, hash: upload.runningHash)
            return true
        } catch {
            context.logger.error("PUT /v1/images/\(sha): keeping the partial upload failed: \(String(reflecting: error))")
            return false
        }
    }

    /// 400: the body ended (or its stream failed) before `length` bytes arrived; no image was stored.
    static func incompleteBody(received: Int64, of length: Int64) -> ServerError {
        ServerError(status: .badRequest, code: "incomplete-body",
                    message: "The body ended after \(received) of \(length) bytes; nothing was stored. Send it again.")
    }

    func tooLarge() -> ServerError {
        ServerError(status: .contentTooLarge, code: "too-large",
                    message: "The image is larger than this server accepts (\(maxImageBytes) bytes); use a smaller image.")
    }
}

extension ServerError {
    /// The same refusal of a cut image body, saying that what arrived is kept for resumption when `kept`.
    func keeping(_ kept: Bool) -> ServerError {
        guard kept else { return self }
        var error = self
        error.message = message.replacingOccurrences(of: "nothing was stored. Send it again.",
                                                     with: "they are kept for 24 hours: HEAD answers Upload-Offset, PATCH sends the rest.")
        return error
    }
}
