/// A bearer token and the server it belongs to: a client sends the token as `Authorization: Bearer …` to requests of
/// that server's origin only (scheme, host and port; `RequestOrigin`), never to a URL a server names elsewhere.
///
/// The two travel together so that no configuration can hold a token without saying where it may go.
public struct BearerCredentials: Sendable, Equatable {
    /// The token. Never appears in descriptions, errors or logs.
    public let token: String
    /// The URL of the server the token belongs to (only its origin counts).
    public let serverURL: String

    /// The token `token` of the server at `serverURL`.
    public init(token: String, serverURL: String) {
        self.token = token
        self.serverURL = serverURL
    }

    /// `token` for the server at `serverURL`, or nil when there is no token (nil or empty).
    public static func of(_ token: String?, at serverURL: String) -> BearerCredentials? {
        guard let token, !token.isEmpty else { return nil }
        return BearerCredentials(token: token, serverURL: serverURL)
    }
}
