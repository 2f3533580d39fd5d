import Foundation
import Hummingbird
import NIOCore

extension ServerRoutes {
    /// `PATCH /v1/images/{sha256}` (`resumable-images`): appends a part to the partial upload an interrupted `PUT` left.
    ///
    /// `204` with `Upload-Offset` for a part; the last part answers as the `PUT` would (`201`/`200` once the whole
    /// image's SHA-256 equals the path; `422` and the partial discarded when it does not); `409` with the server's
    /// `Upload-Offset` when the part does not start there. The latest request wins: one that arrives while another
    /// is still appending to the same image ends that one first (see `UploadClaims`).
    func patchImage(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let sha = try sha256(context)
        let append = try UploadAppend.parse(request.headers, maxImageBytes: maxImageBytes)
        let channel = context.channel
        return try await partials.claims.withClaim(sha, superseding: true, interrupt: { channel.close(promise: nil) }) {
            let stored = try await database.image(sha256: sha)
            let partial = stored == nil ? try await partials.partial(sha) : nil
            switch UploadAppendDecision.decide(append, imageStored: stored != nil, partial: partial.map { ($0.offset, $0.row.length) }) {
            case .alreadyStored:
                try await partials.discard(sha)
                return Self.imageAnswer(request, sha256: sha, bytes: stored?.bytes ?? append.length, created: false)
            case .noUpload:
                throw ServerError.notFound("No upload of image \(sha) is kept here (none was interrupted, it completed, or it expired after 24 hours); send the whole image with PUT.")
            case .lengthMismatch(let kept):
                throw ServerError.badUpload("Upload-Length is \(append.length), but the interrupted upload of this image announced \(kept) bytes.")
            case .offsetMismatch(let kept):
                throw ServerError(status: .conflict, code: "offset-mismatch",
                                  message: "The server has kept \(kept) bytes of this upload, not \(append.offset); send the part that starts at Upload-Offset \(kept).",
                                  headers: [.uploadOffset: String(kept)])
            case .append:
                guard let partial else { throw ServerError.internalStorage }
                return try await appendPart(request, context, sha256: sha, append: append, partial: partial)
            }
        }
    }

    /// Reads a part into the partial upload (holding its claim), then answers for a part or for the whole image.
    private func appendPart(_ request: Request, _ context: ServerRequestContext, sha256 sha: String, append: UploadAppend,
                            partial: PartialUploads.Partial) async throws -> Response {
        let hash = try await partials.runningHash(sha, offset: partial.offset)
        let upload = try await ImageUpload(appendingTo: partials.path(sha), hash: hash, synchronous: images.synchronous,
                                           expectedBytes: append.partLength)
        let end = append.offset + append.partLength
        do {
            for try await chunk in request.body {
                context.record?.received(chunk.readableBytes)
                try await upload.append(chunk)
            }
        } catch let error as ServerError {
            throw error
        } catch let timeout as RequestBodyTimedOut {
            context.record?.bodyEnded()
            try await keepAppended(upload, sha256: sha)
            throw ServerError.bodyTimedOut(timeout, received: upload.bytes - append.offset, of: append.partLength).keeping(true)
        } catch {
            context.record?.bodyEnded()
            try await keepAppended(upload, sha256: sha)
            throw Self.incompleteBody(received: upload.bytes - append.offset, of: append.partLength).keeping(true)
        }
        context.record?.bodyEnded()
        guard upload.bytes == end else {
            try await keepAppended(upload, sha256: sha)
            throw Self.incompleteBody(received: upload.bytes - append.offset, of: append.partLength).keeping(true)
        }
        guard append.complete else {
            try await keepAppended(upload, sha256: sha)
            return Response(status: .noContent, headers: [.uploadOffset: String(end), .uploadComplete: "?0"])
        }
        let digest = upload.digest()
        guard digest == sha else {
            try await partials.discard(sha)
            throw ServerError(status: .unprocessableContent, code: "sha256-mismatch",
                              message: "The whole upload's SHA-256 is \(digest), not the \(sha) of the path; nothing was stored and the partial upload was discarded. Send the whole image again with PUT.")
        }
        try await upload.commit(to: images.path(sha256: sha))
        let created = try await database.recordImage(sha256: sha, contentType: partial.row.contentType, bytes: end)
        try await partials.discard(sha)
        return Self.imageAnswer(request, sha256: sha, bytes: end, created: created)
    }

    /// Keeps the bytes appended so far and remembers their hash, for the next part.
    private func keepAppended(_ upload: ImageUpload, sha256 sha: String) async throws {
        _ = try await upload.keep()
        partials.remember(sha, upload.runningHash)
    }
}
