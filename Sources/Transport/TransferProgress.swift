/// Upload progress: bytes sent so far and the total to send.
public struct TransferProgress: Sendable, Equatable {
    /// Bytes of the request body sent so far.
    public var sent: Int64
    /// Bytes of the request body in total (0 when there is no body).
    public var total: Int64

    /// Creates a progress value.
    public init(sent: Int64, total: Int64) {
        self.sent = sent
        self.total = total
    }
}
