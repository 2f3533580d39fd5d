import Foundation
import Hummingbird
import NIOCore

/// The request context of the reference server: Hummingbird's core storage plus the connection and the request's record.
public struct ServerRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The connection the request came on, used by faults that reset or drop it.
    public let channel: any Channel
    /// What the server learns about this request; set by the request-log middleware.
    public var record: RequestRecord?

    /// Creates the context for a request arriving on `source.channel`.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
        record = nil
    }

    /// Bodies are streamed and limited by the routes themselves.
    public var maxUploadSize: Int { Int.max }
}
