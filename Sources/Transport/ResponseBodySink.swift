/// Where the body of a successful answer goes as it arrives, instead of memory: a file being downloaded, say.
///
/// Called on the transport's thread, one chunk at a time, in order; keep it quick. Returning false stops the transfer,
/// which then fails as `TransportError.Kind.bodyRefused` (the sink knows why).
public protocol ResponseBodySink: AnyObject, Sendable {
    /// Takes the next bytes of the body; false to stop the transfer.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool
}
