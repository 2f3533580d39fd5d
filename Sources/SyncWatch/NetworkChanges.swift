import CLinux
import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's notices of network changes: a `NETLINK_ROUTE` socket joined to the link, IPv4/IPv6 address and route
/// multicast groups (rtnetlink(7)). Joining them needs no privilege, and the socket is readable only when something
/// changed, so the watcher learns that the network came back without asking anything on a timer.
///
/// Wireless drivers announce scan results as link messages (`IFLA_WIRELESS`); those change nothing the watcher cares
/// about and are not counted.
public final class NetworkChanges: Sendable {
    /// The socket's descriptor (non-blocking), to wait on with `poll(2)`.
    public let descriptor: Int32

    /// Opens the socket and joins the groups.
    public init() throws(WatchError) {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard descriptor >= 0 else { throw WatchError(.noNetworkNotices(ErrnoError.describe(errno))) }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = recipes_rtnetlink_groups
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard bound == 0 else {
            let reason = ErrnoError.describe(errno)
            close(descriptor)
            throw WatchError(.noNetworkNotices(reason))
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Reads every message waiting; how many were notices of a change (a lost burst, `ENOBUFS`, counts as one: the
    /// kernel dropped notices because too many came at once).
    public func drain() -> Int {
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        var changes = 0
        while true {
            var sender = sockaddr_nl()
            var senderLength = socklen_t(MemoryLayout<sockaddr_nl>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &senderLength)
                    }
                }
            }
            if count < 0 {
                switch errno {
                case EINTR: continue
                case ENOBUFS: changes += 1
                default: return changes  // EAGAIN: nothing more
                }
                continue
            }
            guard count > 0 else { return changes }
            // Only the kernel (port 0) speaks for the network.
            guard sender.nl_pid == 0 else { continue }
            changes += buffer.withUnsafeBytes { Self.changes(in: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    /// The message types that announce a change.
    static let changeTypes: Set<UInt16> = [
        UInt16(RTM_NEWLINK), UInt16(RTM_DELLINK), UInt16(RTM_NEWADDR), UInt16(RTM_DELADDR),
        UInt16(RTM_NEWROUTE), UInt16(RTM_DELROUTE),
    ]

    /// How many netlink messages in `bytes` (one datagram) announce a change (see `changeTypes`), leaving out
    /// wireless events.
    static func changes(in bytes: UnsafeRawBufferPointer) -> Int {
        let header = Int(recipes_nlmsg_hdrlen())
        var offset = 0
        var count = 0
        while offset + MemoryLayout<nlmsghdr>.size <= bytes.count {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let type = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
            guard length >= MemoryLayout<nlmsghdr>.size, offset + length <= bytes.count else { break }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + header)..<(offset + length)])
            if changeTypes.contains(type), !(type == UInt16(RTM_NEWLINK) && isWireless(payload)) { count += 1 }
            offset += Int(recipes_nlmsg_align(UInt32(length)))
        }
        return count
    }

    /// Whether a link message's payload (an `ifinfomsg`, then attributes) carries `IFLA_WIRELESS`.
    static func isWireless(_ payload: UnsafeRawBufferPointer) -> Bool {
        var offset = Int(recipes_nlmsg_align(UInt32(MemoryLayout<ifinfomsg>.size)))
        while offset + 4 <= payload.count {
            let length = Int(payload.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let type = payload.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)
            guard length >= 4 else { return false }
            if type & 0x3FFF == UInt16(IFLA_WIRELESS) { return true }
            offset += (length + 3) & ~3
        }
        return false
    }
}
