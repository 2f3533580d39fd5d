import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` (Hummingbird does not do this itself): with an interim `100 Continue` when the
/// server wants the body, so clients such as the curl CLI send it at once instead of waiting a second; with no
/// interim answer when `RequestPreflight` says the request will be refused (413, 401, 415, 411, 428), so the route's
/// final answer comes first and the client never sends the body. Such a connection is closed after that answer
/// (marked `Connection: close` both ways), since the body the client announced will not follow.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let preflight: RequestPreflight
    /// Whether the next final answer must announce that the connection closes.
    private var closeAfterAnswer = false

    /// Creates the handler of one connection.
    init(preflight: RequestPreflight) {
        self.preflight = preflight
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var request) = unwrapInboundIn(data),
           request.headerFields[.expect]?.lowercased() == "100-continue" {
            request.headerFields[.expect] = nil
            if preflight.refusal(request) == nil {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            } else {
                // Hummingbird stops reading and closes the connection after answering a "Connection: close" request.
                request.headerFields[.connection] = "close"
                closeAfterAnswer = true
            }
            context.fireChannelRead(wrapInboundOut(.head(request)))
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if closeAfterAnswer, case .head(var response) = unwrapOutboundIn(data), response.status.kind != .informational {
            closeAfterAnswer = false
            response.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(response)), promise: promise)
            return
        }
        context.write(data, promise: promise)
    }
}
