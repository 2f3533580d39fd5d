import Foundation

/// What a request sends.
public enum RequestBody: Sendable, Equatable {
    /// No body.
    case empty
    /// A small body held in memory (JSON), sent with the given `Content-Type`.
    case data(Data, contentType: String)
    /// A file streamed from disk with `Content-Length`, read in chunks and never loaded whole.
    case file(path: String, contentType: String)
    /// The rest of a file from byte `offset` on (the part of an interrupted upload the server lacks), streamed like
    /// `file`, with `Content-Length` the bytes from `offset` to the end.
    case filePart(path: String, offset: Int64, contentType: String)

    /// The body's `Content-Type`, or nil when there is no body.
    public var contentType: String? {
        switch self {
        case .empty: nil
        case .data(_, let contentType), .file(_, let contentType), .filePart(_, _, let contentType): contentType
        }
    }
}
