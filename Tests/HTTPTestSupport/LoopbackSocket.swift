import Foundation
import Glibc

/// The TCP sockets on 127.0.0.1 that the tests' own servers and proxies open: a listener on an ephemeral port, a
/// connection to a port, a port nothing listens on.
enum LoopbackSocket {
    /// A listening socket on an ephemeral loopback port, and that port.
    static func listen(backlog: Int32 = 64) throws -> (socket: Int32, port: Int) {
        let socket = try make()
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard let port = bindEphemeral(socket), Glibc.listen(socket, backlog) == 0 else {
            Glibc.close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        return (socket, port)
    }

    /// A socket connected to `127.0.0.1:port`, or nil when the connection is refused.
    static func connect(port: Int) -> Int32? {
        guard let socket = try? make() else { return nil }
        var address = address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            return nil
        }
        return socket
    }

    /// A loopback TCP port nothing listens on (bound, noted, closed): where a connection is refused.
    static func closedPort() throws -> Int {
        let socket = try make()
        defer { Glibc.close(socket) }
        guard let port = bindEphemeral(socket) else { throw POSIXError(.EADDRINUSE) }
        return port
    }

    private static func make() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EIO) }
        return socket
    }

    /// Binds `socket` to an ephemeral loopback port and answers that port, or nil when that fails.
    private static func bindEphemeral(_ socket: Int32) -> Int? {
        var address = address(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard bound == 0, named == 0 else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
