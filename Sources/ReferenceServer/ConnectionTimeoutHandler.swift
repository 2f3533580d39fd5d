import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The error a request body's stream ends with when the client sends it too slowly (see `ConnectionTimeouts`).
struct RequestBodyTimedOut: Error, CustomStringConvertible {
    /// The period the body had to make progress in.
    var period: Duration
    /// The least bytes per second it had to bring.
    var minimumRate: Int64

    var description: String { "request body too slow (less than \(minimumRate) bytes/s over \(period.milliseconds) ms)" }
}

/// Runs `ConnectionTimeouts` for one connection: closes it when idle or when the server has drained for too long,
/// and ends a request whose body stalls or trickles (its body stream fails with `RequestBodyTimedOut`, the route
/// answers `408` marked `Connection: close`, and the connection closes after that answer).
///
/// One timer per connection, rescheduled only when the next deadline moves earlier; when it fires, the state
/// machine says whether to act or to look again later (a body that keeps arriving just moves its deadline on).
final class ConnectionTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeouts: ServerTimeouts
    private var state: ConnectionTimeouts
    private var timer: (task: Scheduled<Void>, deadline: NIODeadline)?
    /// Whether the answer being written is the last one on this connection (after a body timeout).
    private var closeAfterAnswer = false

    /// Creates the handler of one connection.
    init(timeouts: ServerTimeouts) {
        self.timeouts = timeouts
        state = ConnectionTimeouts(timeouts, now: .now())
    }

    func handlerAdded(context: ChannelHandlerContext) {
        state = ConnectionTimeouts(timeouts, now: .now())
        if context.channel.isActive { reschedule(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancelTimer() }

    func channelActive(context: ChannelHandlerContext) {
        reschedule(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = NIODeadline.now()
        state.dataArrived(now: now)
        switch unwrapInboundIn(data) {
        case .head: state.requestHead(now: now)
        case .body(let buffer): state.bodyBytes(buffer.readableBytes, now: now)
        case .end: state.requestEnd(now: now)
        }
        reschedule(context)
        context.fireChannelRead(data)
    }

    /// The server asks for more data (NIO's async channel withholds this while its buffer is full).
    func read(context: ChannelHandlerContext) {
        state.readRequested(now: .now())
        reschedule(context)
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where closeAfterAnswer && response.status.kind != .informational:
            response.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .end where closeAfterAnswer:
            context.writeAndFlush(data, promise: promise)
            context.close(promise: nil)
        case .end:
            state.answerEnd(now: .now())
            context.write(data, promise: promise)
            reschedule(context)
        default:
            context.write(data, promise: promise)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            state.quiesce(now: .now())
            reschedule(context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Arms the timer for the state's deadline unless one at least as early is armed already.
    private func reschedule(_ context: ChannelHandlerContext) {
        guard let deadline = state.deadline else { return }
        if let timer {
            guard deadline < timer.deadline else { return }
            timer.task.cancel()
        }
        let loop = context.eventLoop.assumeIsolated()
        let task = loop.scheduleTask(deadline: deadline) { [self] in
            timer = nil
            expire(context)
        }
        timer = (task, deadline)
    }

    private func cancelTimer() {
        timer?.task.cancel()
        timer = nil
    }

    private func expire(_ context: ChannelHandlerContext) {
        switch state.expire(now: .now()) {
        case .none:
            reschedule(context)
        case .endBody:
            closeAfterAnswer = true
            context.fireErrorCaught(RequestBodyTimedOut(period: timeouts.body, minimumRate: timeouts.minimumBodyRate))
            reschedule(context)
        case .close:
            context.close(promise: nil)
        }
    }
}
