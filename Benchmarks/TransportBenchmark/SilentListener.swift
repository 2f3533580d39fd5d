import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP listener that accepts connections and then never reads or writes: a server that went silent.
final class SilentListener: Sendable {
    /// The port it listens on (127.0.0.1).
    let port: Int
    private let accepted = Locked<[Int32]>([])

    /// Binds an ephemeral loopback port and accepts on a background thread.
    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listener >= 0, ok else { throw POSIXError(.EADDRNOTAVAIL) }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client >= 0 { accepted.withLock { $0.append(client) } } // held open, never answered
            }
        }
        thread.start()
    }
}
