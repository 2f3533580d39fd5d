import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Refuses a request whose header fields are larger than the HTTP decoder accepts (Hummingbird's 80 KiB) with
/// `431 {"error":"headers-too-large",…}` and `Connection: close`, instead of Hummingbird's bare `400`.
///
/// The client may still be sending its head when the answer goes out, and closing a socket with unread bytes
/// makes the kernel send a reset that can destroy the answer before the client reads it. So the handler closes
/// only the sending half, reads and drops what still arrives, and closes the connection once the client has
/// closed its half or `linger` has passed.
final class OversizedHeadHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// How long a refused client may keep sending before the connection is closed anyway.
    static let linger: TimeAmount = .seconds(2)

    /// Request heads read whose answer has not started ending.
    private var answersPending = 0
    /// Whether the connection was refused and now only drains.
    private var refused = false

    /// Creates the handler of one connection.
    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if case .head = unwrapInboundIn(data) { answersPending += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { answersPending = max(0, answersPending - 1) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if refused { return }  // the decoder reports each later read as data in its error state: all dropped
        guard let parserError = error as? HTTPParserError, parserError == .headerOverflow else {
            context.fireErrorCaught(error)
            return
        }
        refused = true
        if answersPending == 0 {
            let body = ServerError.headersTooLarge.jsonBody()
            let head = HTTPResponse(status: .init(code: 431), headerFields: [
                .connection: "close", .contentType: "application/json", .contentLength: String(body.readableBytes),
            ])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.close(mode: .output, promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.linger) {
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if refused, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

extension ServerError {
    /// 431: the request head is larger than the server's HTTP decoder accepts.
    static let headersTooLarge = ServerError(
        status: .init(code: 431), code: "headers-too-large",
        message: "The request's header fields are larger than this server accepts (80 KiB in all); send smaller headers.")
}
