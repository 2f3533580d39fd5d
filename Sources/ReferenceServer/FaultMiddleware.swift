import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Applies the `--fault` rules: latency, injected statuses, resets mid-body, lost acknowledgements, stalls, and
/// answers cut short or sent slowly.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The rules and their counters.
    let plan: FaultPlan
    /// Whether an image upload cut by `reset` keeps what was read as a partial upload (`resumable-images`), as a
    /// real connection loss does.
    let keepsPartialUploads: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let decision = plan.decide(method: request.method.rawValue, path: request.uri.path)
        context.record?.applied(fault: decision.logDescription)
        if decision.latency > .zero { try await Task.sleep(for: decision.latency) }
        guard let rule = decision.rule else { return try await next(request, context) }

        switch rule.action {
        case .latency:
            return try await next(request, context)
        case .status(let code, let retryAfter):
            var headers: HTTPFields = [.contentType: "application/json"]
            switch retryAfter {
            case .seconds(let seconds)?: headers[.retryAfter] = String(seconds)
            case .httpDate(let ahead)?: headers[.retryAfter] = Self.httpDate(Date().addingTimeInterval(Double(ahead)))
            case nil: break
            }
            if code == 204 || code == 304 {
                headers[.contentType] = nil  // these statuses must not carry a body
                return Response(status: .init(code: code), headers: headers)
            }
            let error = ServerError(status: .init(code: code), code: "injected-fault",
                                    message: "Fault injected by recipes-server --fault \"\(rule.description)\".", headers: headers)
            return try error.response(from: request, context: context)
        case .reset(let afterBytes):
            if afterBytes > 0, keepsPartialUploads, Self.isImageUpload(request) {
                if let cut = try await Self.cut(request.body, after: afterBytes, record: context.record) {
                    // The route reads the bytes before the cut, then the stream fails as on a connection loss: it
                    // keeps them as the image's partial upload. Its answer is never sent.
                    var cutRequest = request
                    cutRequest.body = RequestBody(asyncSequence: cut)
                    _ = try? await next(cutRequest, context)
                }
                await Self.reset(context.channel)
                throw ConnectionDropped(fault: rule.action.logName)
            }
            if afterBytes > 0 {
                var seen: Int64 = 0
                for try await chunk in request.body {
                    seen += Int64(chunk.readableBytes)
                    context.record?.received(chunk.readableBytes)
                    if seen >= afterBytes { break }
                }
            }
            await Self.reset(context.channel)
            throw ConnectionDropped(fault: rule.action.logName)
        case .lostAcknowledgement:
            // Only a committed request (2xx) loses its answer; a refused one (409, 422, ...) is answered normally
            // and logged without the lost-ack.
            let withoutLostAck = FaultDecision(latency: decision.latency).logDescription
            let response: Response
            do { response = try await next(request, context) } catch {
                context.record?.applied(fault: withoutLostAck)
                throw error
            }
            guard (200..<300).contains(response.status.code) else {
                context.record?.applied(fault: withoutLostAck)
                return response
            }
            try? await context.channel.close(mode: .all)
            throw ConnectionDropped(fault: rule.action.logName)
        case .truncate(let bytes):
            var response = try await next(request, context)
            response.body = FaultyAnswerBody.truncated(response.body, after: bytes, channel: context.channel)
            return response
        case .throttle(let rate):
            var response = try await next(request, context)
            response.body = FaultyAnswerBody.throttled(response.body, bytesPerSecond: rate)
            return response
        case .stall:
            for try await chunk in request.body { context.record?.received(chunk.readableBytes) }
            context.record?.bodyEnded()
            let channel = context.channel
            await withGracefulShutdownHandler {
                await withTaskCancellationHandler {
                    try? await channel.closeFuture.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
            } onGracefulShutdown: {
                channel.close(promise: nil)
            }
            throw ConnectionDropped(fault: rule.action.logName)
        }
    }

    /// Whether a request sends image bytes (`PUT` or `PATCH /v1/images/…`).
    static func isImageUpload(_ request: Request) -> Bool {
        (request.method == .put || request.method == .patch) && request.uri.path.hasPrefix("/v1/images/")
    }

    /// The first `limit` bytes of `body`, as a body that then fails like a lost connection; nil when the body ended
    /// before `limit` (its bytes are counted in `record`, and nothing is handed on).
    static func cut(_ body: RequestBody, after limit: Int64, record: RequestRecord?) async throws -> CutBody? {
        var chunks: [ByteBuffer] = []
        var seen: Int64 = 0
        for try await chunk in body {
            let wanted = Int(min(Int64(chunk.readableBytes), limit - seen))
            chunks.append(chunk.getSlice(at: chunk.readerIndex, length: wanted) ?? ByteBuffer())
            seen += Int64(wanted)
            if seen >= limit { return CutBody(chunks: chunks) }
        }
        for chunk in chunks { record?.received(chunk.readableBytes) }
        return nil
    }

    /// Closes the connection with a TCP reset (SO_LINGER 0), so the client sees "connection reset by peer".
    static func reset(_ channel: any Channel) async {
        if let provider = channel as? any SocketOptionProvider {
            try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close(mode: .all)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

/// A request body cut by a `reset` fault: the chunks read before the cut, then the error of a lost connection.
struct CutBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// The bytes before the cut.
    let chunks: [ByteBuffer]

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: [ByteBuffer]
        var index = 0

        mutating func next() async throws -> ByteBuffer? {
            guard index < chunks.count else { throw ConnectionDropped(fault: "reset") }
            index += 1
            return chunks[index - 1]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks) }
}
