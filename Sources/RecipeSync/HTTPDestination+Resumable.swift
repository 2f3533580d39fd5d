import Foundation
import RecipeModels
import Transport

/// Resuming an image upload the server kept part of (`resumable-images`): `HEAD` for the offset, `PATCH` of the rest;
/// the decisions are `ResumableUpload`'s.
extension HTTPDestination {
    /// Sends what the server lacks of `image` (`size` bytes at `path`): nothing when it has the image, the rest from
    /// the offset it kept (again from the offset a `409` names). Returns the image's name once stored, or nil when the
    /// whole image must go with `PUT` (nothing kept, the partial expired, or the whole's SHA-256 differed: refused,
    /// discarded by the server, started over).
    func resume(
        _ image: ImageReference, of recipe: UUID, from path: String, size: Int64,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> String? {
        let what = "image \(image.sha256.prefix(12))"
        let head = try await send(api.headImage(sha256: image.sha256), what: what)
        var next = ResumableUpload.afterHead(
            status: head.status, confirms: ServerAPI.headConfirmsImage(head, sha256: image.sha256),
            offset: ResumableUpload.offset(of: head), size: size)
        if next == .stored { return imageName(sha256: image.sha256, of: recipe) }
        if next == .failed { throw failure(head, what: what, request: .mayBeMissing) }
        var mismatches = 0
        while case .patch(let offset) = next {
            let request = api.patchImage(sha256: image.sha256, path: path, offset: offset, size: size)
            let response = try await sendUpload(request, of: image.sha256, what: what, progress: progress)
            if response.status == 409 { mismatches += 1 }
            next = ResumableUpload.afterPatch(
                status: response.status, offset: ResumableUpload.offset(of: response), size: size, mismatches: mismatches)
            switch next {
            case .stored: return try acknowledgedName(response, of: image, recipe: recipe)
            case .failed: throw failure(response, what: what)
            case .put, .patch: continue
            }
        }
        return nil
    }

    /// Sends an upload of image `sha256`; a transfer cut short (reset, timeout) is remembered, so that the next attempt
    /// asks the server what it kept.
    func sendUpload(
        _ request: HTTPRequest, of sha256: String, what: String, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> HTTPResponse {
        do {
            return try await send(request, what: what, progress: progress)
        } catch let failure as StepFailure {
            if case .transient = failure.kind { cutUploads.insert(sha256) }
            throw failure
        }
    }

    /// The size of the file at `path`, or nil when it cannot be read (the `PUT` then says why).
    static func fileSize(_ path: String) -> Int64? {
        (try? URL(fileURLWithPath: path).resourceValues(forKeys: [.fileSizeKey]).fileSize).flatMap { $0.map(Int64.init) }
    }
}
