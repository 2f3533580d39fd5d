/// An HTTP method the sync engine uses.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    /// Reads a resource.
    case get = "GET"
    /// Asks whether a resource exists, without its body.
    case head = "HEAD"
    /// Stores a resource (a JSON document or a file streamed from disk).
    case put = "PUT"
    /// Deletes a resource.
    case delete = "DELETE"
}
