import Foundation
import Locking

/// What the server learned about one request while handling it, for the request log and the fault logic.
public final class RequestRecord: Sendable {
    /// The mutable facts.
    struct Facts {
        var bytesReceived: Int64 = 0
        var bodyFinished = false
        var fault: String?
    }

    /// When the request head arrived.
    let start: Date
    /// The announced body length, if any.
    let expectedLength: Int64?
    /// Whether the body is chunked (no length announced, complete only when its end arrived).
    let chunked: Bool
    private let facts = Locked(Facts())

    /// Creates a record for a request that announced `expectedLength` body bytes.
    init(start: Date, expectedLength: Int64?, chunked: Bool) {
        self.start = start
        self.expectedLength = expectedLength
        self.chunked = chunked
    }

    /// Counts body bytes the server read.
    func received(_ count: Int) { facts.withLock { $0.bytesReceived += Int64(count) } }

    /// Notes that the body stream ended (cleanly or not).
    func bodyEnded() { facts.withLock { $0.bodyFinished = true } }

    /// Notes the fault applied.
    func applied(fault: String?) { facts.withLock { $0.fault = fault } }

    /// Body bytes read so far.
    var bytesReceived: Int64 { facts.withLock { $0.bytesReceived } }

    /// Whether the whole announced body arrived (true when none was announced).
    var bodyComplete: Bool {
        facts.withLock { facts in
            if chunked { return facts.bodyFinished }
            guard let expectedLength, expectedLength > 0 else { return true }
            return facts.bytesReceived == expectedLength
        }
    }

    /// The fault applied, if any.
    var fault: String? { facts.withLock { $0.fault } }
}
