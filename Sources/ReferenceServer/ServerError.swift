import Foundation
import Hummingbird

/// An error answer of the server: an HTTP status with the contract's `{"error":…, "message":…}` body.
public struct ServerError: Error, LocalizedError, HTTPResponseError, Sendable, Equatable {
    /// The HTTP status code.
    public var status: HTTPResponse.Status
    /// The machine-readable code, e.g. `sha256-mismatch`.
    public var code: String
    /// What went wrong and what to do, for a person.
    public var message: String
    /// Extra JSON members merged into the body (e.g. `version` and `deleted` of a 412).
    var extra: [String: JSONAnswer] = [:]
    /// Extra headers (e.g. `WWW-Authenticate`).
    public var headers: HTTPFields = [:]

    /// The message, so the error reads well when it reaches a log.
    public var errorDescription: String? { message }

    /// Builds the JSON error answer.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        let body = request.method == .head ? ByteBuffer() : jsonBody()
        return Response(status: status, headers: fields, body: .init(byteBuffer: body))
    }

    /// The body bytes: `{"error":…,"message":…}` plus any extra members.
    func jsonBody() -> ByteBuffer {
        var object: [String: JSONAnswer] = ["error": .string(code), "message": .string(message)]
        for (key, value) in extra { object[key] = value }
        return JSONAnswer.object(object).buffer
    }
}

extension ServerError {
    /// 400: a path parameter is malformed.
    static func badPath(_ message: String) -> ServerError { ServerError(status: .badRequest, code: "bad-request", message: message) }
    /// 422: the request is well-formed but its content is not acceptable.
    static func invalid(_ message: String) -> ServerError { ServerError(status: .unprocessableContent, code: "invalid", message: message) }
    /// 404: nothing stored under this path.
    static func notFound(_ message: String) -> ServerError { ServerError(status: .notFound, code: "not-found", message: message) }
    /// 408: the request body stalled or trickled (see `ServerTimeouts.body`); nothing was stored.
    static func bodyTimedOut(_ timeout: RequestBodyTimedOut, received: Int64, of length: Int64?) -> ServerError {
        let seconds = Double(timeout.period.milliseconds) / 1000
        let expected = length.map { " of \($0)" } ?? ""
        return ServerError(status: .requestTimeout, code: "body-timeout",
                           message: "The body stopped making progress after \(received)\(expected) bytes (less than \(timeout.minimumRate) bytes/s over \(seconds.formatted()) s); nothing was stored. Send it again.",
                           headers: [.connection: "close"])
    }
}
