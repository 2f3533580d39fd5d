import Hummingbird

/// Turns every error answer (including Hummingbird's own 404/405 and unexpected storage errors) into the contract's
/// JSON error body.
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
        } catch let timeout as RequestBodyTimedOut {
            // A body a fault or Hummingbird itself was reading stalled: the same answer the routes give.
            let received = context.record?.bytesReceived ?? 0
            let length = request.headers[.contentLength].flatMap { Int64($0) }
            return try ServerError.bodyTimedOut(timeout, received: received, of: length).response(from: request, context: context)
        } catch is CancellationError {
            throw CancellationError()  // the server is stopping this task: there is no one to answer
        } catch {
            // A database or file error: the details go to the server's log only, never to the client.
            context.logger.error("\(request.method.rawValue) \(request.uri.path) failed: \(String(reflecting: error))")
            return try ServerError.internalStorage.response(from: request, context: context)
        }
    }
}

extension ServerError {
    /// 500: an unexpected database or file error; the message names no internals.
    static let internalStorage = ServerError(
        status: .internalServerError, code: "storage",
        message: "The server could not complete this request because of an internal storage error; try again later (the server's log has the details).")
}
