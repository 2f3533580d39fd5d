import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with an interim `100 Continue`, so clients such as the curl CLI send their body
/// at once instead of waiting a second for it (Hummingbird does not do this itself).
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var request) = unwrapInboundIn(data),
           request.headerFields[.expect]?.lowercased() == "100-continue" {
            request.headerFields[.expect] = nil
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            context.fireChannelRead(wrapInboundOut(.head(request)))
            return
        }
        context.fireChannelRead(data)
    }
}
