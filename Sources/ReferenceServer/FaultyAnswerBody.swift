import Hummingbird
import NIOCore

/// Answer bodies changed by a fault: cut after some bytes (then the connection is reset), or sent slowly.
enum FaultyAnswerBody {
    /// `body` with the same announced length, of which only the first `limit` bytes are sent before the connection
    /// is reset (the client sees a body cut short and "connection reset by peer").
    static func truncated(_ body: ResponseBody, after limit: Int64, channel: any Channel) -> ResponseBody {
        ResponseBody(contentLength: body.contentLength) { writer in
            do {
                // A body that fits under the limit is sent in full (and finished by the writer as usual).
                try await body.write(TruncatingWriter(parent: writer, remaining: limit))
            } catch is TruncatingWriter.LimitReached {
                // The bytes before the cut are written by now; the reset makes the client see the body end early.
                await FaultMiddleware.reset(channel)
                throw ConnectionDropped(fault: "truncate=\(limit)")
            }
        }
    }

    /// `body` sent at most `rate` bytes per second, in slices of a tenth of a second.
    static func throttled(_ body: ResponseBody, bytesPerSecond rate: Int64) -> ResponseBody {
        ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(ThrottlingWriter(parent: writer, bytesPerSecond: rate))
        }
    }
}

/// Passes on at most `remaining` bytes, then stops the body with `LimitReached`.
private struct TruncatingWriter: ResponseBodyWriter {
    /// Thrown once the limit is reached.
    struct LimitReached: Error {}

    var parent: any ResponseBodyWriter
    var remaining: Int64

    mutating func write(_ buffer: ByteBuffer) async throws {
        guard Int64(buffer.readableBytes) > remaining else {
            remaining -= Int64(buffer.readableBytes)
            try await parent.write(buffer)
            return
        }
        if remaining > 0 { try await parent.write(buffer.getSlice(at: buffer.readerIndex, length: Int(remaining)) ?? ByteBuffer()) }
        remaining = 0
        throw LimitReached()
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await parent.finish(trailingHeaders)
    }
}

/// Passes on each buffer in slices of `bytesPerSecond / 10` bytes (at least 1), sleeping after each as long as
/// sending it at that rate takes.
private struct ThrottlingWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter
    let bytesPerSecond: Int64

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        let slice = Int(max(1, bytesPerSecond / 10))
        while buffer.readableBytes > 0 {
            let part = buffer.readSlice(length: min(slice, buffer.readableBytes)) ?? ByteBuffer()
            try await parent.write(part)
            try await Task.sleep(for: .nanoseconds(Int64(part.readableBytes) * 1_000_000_000 / bytesPerSecond))
        }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await parent.finish(trailingHeaders)
    }
}
