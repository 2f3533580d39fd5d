import Hummingbird

/// Turns every error answer (including Hummingbird's own 404/405) into the contract's JSON error body.
struct ErrorBodyMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServerError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let code = error.status == .notFound ? "not-found" : "http-\(error.status.code)"
            let message = error.status == .notFound
                ? "Nothing here: \(request.method.rawValue) \(request.uri.path) is not part of the recipes HTTP contract."
                : (error.body ?? error.status.reasonPhrase)
            return try ServerError(status: error.status, code: code, message: message, headers: error.headers).response(from: request, context: context)
        }
    }
}
