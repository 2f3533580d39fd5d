import Foundation
import HTTPTypes

extension HTTPField.Name {
    /// `Upload-Offset`: the bytes of an upload the server has kept (answers), or where a part starts (requests).
    static let uploadOffset = HTTPField.Name("Upload-Offset")!
    /// `Upload-Length`: the whole length of an upload.
    static let uploadLength = HTTPField.Name("Upload-Length")!
    /// `Upload-Complete`: `?1` on the last part of an upload, `?0` on another (a structured-field boolean).
    static let uploadComplete = HTTPField.Name("Upload-Complete")!
}

/// The headers of a `PATCH /v1/images/{sha256}` that appends a part to a partial upload, read and checked: a pure
/// function of the headers, tested from a table.
struct UploadAppend: Sendable, Equatable {
    /// The media type every part is sent with.
    static let contentType = "application/partial-upload"

    /// Where the part starts (`Upload-Offset`).
    var offset: Int64
    /// The whole image's length (`Upload-Length`).
    var length: Int64
    /// Whether this is the last part (`Upload-Complete: ?1`).
    var complete: Bool
    /// The part's length (`Content-Length`).
    var partLength: Int64

    /// Reads the headers; a missing or malformed one is the error the server answers (`415`, `411`, `413`, `400`).
    static func parse(_ headers: HTTPFields, maxImageBytes: Int64) throws(ServerError) -> UploadAppend {
        guard ServerRoutes.mediaType(headers) == contentType else {
            throw ServerError(status: .unsupportedMediaType, code: "unsupported-media-type",
                              message: "Send each part of an upload with Content-Type: \(contentType).")
        }
        guard let partLength = number(headers[.contentLength]) else {
            throw ServerError(status: .lengthRequired, code: "length-required", message: "Send each part with a Content-Length header.")
        }
        guard let offset = number(headers[.uploadOffset]) else {
            throw .badUpload("Upload-Offset must be the number of bytes the server has kept (HEAD answers it), e.g. Upload-Offset: 65536.")
        }
        guard let length = number(headers[.uploadLength]) else {
            throw .badUpload("Upload-Length must be the whole image's length in bytes.")
        }
        guard length <= maxImageBytes else {
            throw ServerError(status: .contentTooLarge, code: "too-large",
                              message: "The image is larger than this server accepts (\(maxImageBytes) bytes); use a smaller image.")
        }
        let complete: Bool
        switch headers[.uploadComplete]?.trimmingCharacters(in: .whitespaces) {
        case "?1": complete = true
        case "?0": complete = false
        default: throw .badUpload("Upload-Complete must be ?1 (the last part) or ?0 (more parts follow).")
        }
        let (end, overflow) = offset.addingReportingOverflow(partLength)
        guard !overflow, end <= length else {
            throw .badUpload("The part ends at byte \(end), past Upload-Length \(length).")
        }
        guard !complete || end == length else {
            throw .badUpload("The last part (Upload-Complete: ?1) must end at Upload-Length \(length), not at byte \(end).")
        }
        return UploadAppend(offset: offset, length: length, complete: complete, partLength: partLength)
    }

    /// A header that is a whole number >= 0 (digits only), else nil.
    private static func number(_ text: String?) -> Int64? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int64(text)
    }
}

/// What a `PATCH /v1/images/{sha256}` does, decided from its headers, whether the image is stored and the partial
/// kept: a pure function, tested from a table.
enum UploadAppendDecision: Sendable, Equatable {
    /// The image is stored already: `200` with the image answer (the `PUT` of a stored image); the part is not read.
    case alreadyStored
    /// No partial upload of this image is kept (never, expired, completed or discarded): `404`; send it with `PUT`.
    case noUpload
    /// `Upload-Length` is not the length the interrupted `PUT` announced: `400`; the partial is kept.
    case lengthMismatch(kept: Int64)
    /// `Upload-Offset` is not the bytes kept: `409` with the server's `Upload-Offset`.
    case offsetMismatch(kept: Int64)
    /// Append the part.
    case append

    /// Decides; the order: stored image, no partial, length, offset.
    static func decide(_ append: UploadAppend, imageStored: Bool, partial: (offset: Int64, length: Int64)?) -> UploadAppendDecision {
        if imageStored { return .alreadyStored }
        guard let partial else { return .noUpload }
        guard append.length == partial.length else { return .lengthMismatch(kept: partial.length) }
        guard append.offset == partial.offset else { return .offsetMismatch(kept: partial.offset) }
        return .append
    }
}

extension ServerError {
    /// 400: the `Upload-*` headers of a part are missing, malformed or inconsistent.
    static func badUpload(_ message: String) -> ServerError { ServerError(status: .badRequest, code: "bad-upload", message: message) }
}
