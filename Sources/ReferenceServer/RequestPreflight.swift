import HTTPTypes

/// What the server will refuse from a request's head alone, before reading any of its body.
///
/// `ExpectContinueHandler` asks it so a client that sent `Expect: 100-continue` gets the final status at once
/// instead of `100 Continue` (and does not send a 500 MiB body for nothing). It mirrors the checks the
/// bearer-token middleware and the routes that take a body make before they read it (token, precondition headers,
/// media type, length); those still give the answer.
struct RequestPreflight: Sendable {
    /// The bearer token's bytes, when the server requires one.
    let token: [UInt8]?
    /// The largest image accepted.
    let maxImageBytes: Int64
    /// The optional requests answered (a request to one that is off is left to the router's `404`).
    var features: Set<ServerFeature> = ServerFeature.all

    /// The status the server will answer without reading the body, or nil when it wants the body.
    func refusal(_ request: HTTPRequest) -> HTTPResponse.Status? {
        let path = request.path.map { String($0.prefix(while: { $0 != "?" })) } ?? ""
        if let token, path != "/v1/health" {
            guard let header = request.headerFields[.authorization], BearerTokenMiddleware.carries(header, token: token) else {
                return .unauthorized
            }
        }
        let mediaType = ServerRoutes.mediaType(request.headerFields)
        let length = request.headerFields[.contentLength].flatMap { Int64($0) }
        if request.method == .post {
            let limit: Int
            switch path {
            case "/v1/images/missing" where features.contains(.imagesMissing): limit = ServerRoutes.maxMissingQueryBytes
            case "/v1/recipes/batch" where features.contains(.recipesBatch): limit = RecipeBatch.maxBytes
            default: return nil
            }
            guard ServerRoutes.recipeContentTypes.contains(mediaType) else { return .unsupportedMediaType }
            if let length, length > Int64(limit) { return .contentTooLarge }
            return nil
        }
        if request.method == .patch {
            guard path.hasPrefix("/v1/images/"), features.contains(.resumableImages) else { return nil }
            do { _ = try UploadAppend.parse(request.headerFields, maxImageBytes: maxImageBytes) } catch { return error.status }
            return nil
        }
        guard request.method == .put else { return nil }
        if path.hasPrefix("/v1/images/") {
            guard ImageStore.contentTypes.contains(mediaType) else { return .unsupportedMediaType }
            guard let length, length >= 0 else { return .lengthRequired }
            if length > maxImageBytes { return .contentTooLarge }
        } else if path.hasPrefix("/v1/recipes/") {
            guard let precondition = try? WritePrecondition.parse(request.headerFields) else { return .badRequest }
            guard precondition != .none else { return .preconditionRequired }
            guard ServerRoutes.recipeContentTypes.contains(mediaType) else { return .unsupportedMediaType }
            if let length, length > ServerRoutes.maxRecipeBytes { return .contentTooLarge }
        }
        return nil
    }
}
