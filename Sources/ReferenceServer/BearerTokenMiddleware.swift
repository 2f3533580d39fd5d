import Hummingbird

/// Requires `Authorization: Bearer <token>` on every request except `GET /v1/health`; never echoes the token.
struct BearerTokenMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The expected token's bytes.
    let token: [UInt8]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/v1/health" { return try await next(request, context) }
        let challenge: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"recipes\""]
        guard let header = request.headers[.authorization] else {
            throw ServerError(status: .unauthorized, code: "unauthorized",
                              message: "This server needs a bearer token: set RECIPES_TOKEN (or server.token) to the server's token.",
                              headers: challenge)
        }
        guard Self.carries(header, token: token) else {
            throw ServerError(status: .unauthorized, code: "unauthorized",
                              message: "The bearer token was not accepted: check RECIPES_TOKEN (or server.token) matches the server's token.",
                              headers: challenge)
        }
        return try await next(request, context)
    }

    /// Whether an `Authorization` header value is `Bearer <token>` (scheme case-insensitive, token compared in constant time).
    static func carries(_ header: String, token: [UInt8]) -> Bool {
        let prefix = "bearer "
        return header.count > prefix.count && header.lowercased().hasPrefix(prefix)
            && constantTimeEqual(Array(header.utf8.dropFirst(prefix.count)), token)
    }

    /// Compares two byte strings in time independent of where they differ.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
