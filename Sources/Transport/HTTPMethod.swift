/// An HTTP method a destination's requests use.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    /// Reads a resource.
    case get = "GET"
    /// Asks whether a resource exists, without its body.
    case head = "HEAD"
    /// Stores a resource (a JSON document or a file streamed from disk).
    case put = "PUT"
    /// Deletes a resource.
    case delete = "DELETE"
    /// Submits a body for the server to act on (a Mealie creation, a multipart form).
    case post = "POST"
    /// Changes part of a resource.
    case patch = "PATCH"

    /// Whether a request with this method always carries a body, `Content-Length: 0` when it has nothing to send: a
    /// server may wait for the body of a `PUT`, `POST` or `PATCH` that declares no length.
    var sendsBody: Bool {
        switch self {
        case .put, .post, .patch: true
        case .get, .head, .delete: false
        }
    }
}
