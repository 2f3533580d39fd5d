/// Thrown after a fault has reset, dropped or abandoned the connection: there is no answer to send.
struct ConnectionDropped: Error, CustomStringConvertible {
    /// Which fault dropped it.
    var fault: String

    /// Names the fault, for Hummingbird's debug log.
    var description: String { "connection dropped by fault \(fault)" }
}
