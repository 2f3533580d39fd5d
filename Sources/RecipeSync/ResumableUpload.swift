import Foundation
import Locking
import Transport

/// The decisions of a resumable image upload (`resumable-images`, docs/http-api.md): when to ask the server how much of
/// an interrupted upload it kept, and what to send after each answer. Plain functions, tested from tables; the I/O is
/// `HTTPDestination.resume`.
enum ResumableUpload {
    /// What to send next.
    enum Next: Equatable {
        /// The server has the whole image: nothing to send.
        case stored
        /// Send the whole image with `PUT` (nothing kept, the partial is unusable, or it was refused whole).
        case put
        /// Send the rest from byte `offset` with `PATCH`.
        case patch(from: Int64)
        /// The answer is a failure: read it as `PUT`'s would be.
        case failed
    }

    /// From this size on, an upload asks for the offset kept before it sends anything (a `HEAD`, one round trip): a
    /// smaller image costs less to send again whole than the round trip a `HEAD` takes on a slow link. After a cut in
    /// this run, any size asks.
    static let askFirstFrom: Int64 = 1 << 20

    /// At most this many `409`s in a row before the upload starts over with a `PUT`.
    static let maxOffsetMismatches = 3

    /// Whether an upload of `size` bytes asks the server first how much it kept.
    static func asksOffset(size: Int64, cutBefore: Bool) -> Bool {
        cutBefore || size >= askFirstFrom
    }

    /// After `HEAD /v1/images/{sha256}`: `confirms` (a `200` naming the image) → stored; `404` with `Upload-Offset` in
    /// `0...size` → the rest from there; `404` without → the whole; anything else is a failure.
    static func afterHead(status: Int, confirms: Bool, offset: Int64?, size: Int64) -> Next {
        if confirms { return .stored }
        guard status == 404 else { return .failed }
        guard let offset, offset > 0, offset <= size else { return .put }
        return .patch(from: offset)
    }

    /// After a `PATCH` of the rest (the last part, `Upload-Complete: ?1`), the `mismatches`-th `409` in a row counted:
    /// `201`/`200` → stored (its answer checked as a `PUT`'s); `409` with the server's offset → the rest from there
    /// (bounded); `404` (the partial expired or completed elsewhere) or `422` (the whole's SHA-256 differs: the partial
    /// is discarded) → the whole again; anything else is a failure.
    static func afterPatch(status: Int, offset: Int64?, size: Int64, mismatches: Int) -> Next {
        switch status {
        case 200, 201: return .stored
        case 409:
            guard let offset, offset >= 0, offset <= size, mismatches < maxOffsetMismatches else { return .put }
            return offset == 0 ? .put : .patch(from: offset)
        case 404, 422: return .put
        default: return .failed
        }
    }

    /// The offset an answer's `Upload-Offset` says: a non-negative integer, else nil.
    static func offset(of response: HTTPResponse) -> Int64? {
        guard let text = response.header("Upload-Offset")?.trimmingCharacters(in: .whitespaces),
            let value = Int64(text), value >= 0
        else { return nil }
        return value
    }
}

/// The images whose upload was cut in this run: their next attempt asks the server what it kept, whatever their size.
final class CutUploads: Sendable {
    private let cut = Locked<Set<String>>([])

    init() {}

    func insert(_ sha256: String) { cut.withLock { _ = $0.insert(sha256) } }
    func contains(_ sha256: String) -> Bool { cut.withLock { $0.contains(sha256) } }
}

extension ServerAPI {
    /// `PATCH /v1/images/{sha256}`: the rest of an interrupted upload of the file at `path` (`size` bytes), from
    /// `offset` to the end, as its last part.
    func patchImage(sha256: String, path: String, offset: Int64, size: Int64) -> HTTPRequest {
        var request = HTTPRequest(
            method: .patch, url: imageURL(sha256: sha256),
            headers: ["Upload-Offset": "\(offset)", "Upload-Length": "\(size)", "Upload-Complete": "?1"],
            body: .filePart(path: path, offset: offset, contentType: "application/partial-upload"),
            answerDeadline: Self.answerDeadline)
        request.resendsWhole = false
        return request
    }
}
