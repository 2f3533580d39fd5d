import CLinux
import Foundation
@testable import SyncWatch
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A network namespace of the test's own (`ip netns add` with a unique name), deleted when released.
final class PrivateNetwork {
    let name: String

    /// Whether this machine lets the tests make one (root, and namespaces allowed), found once by making one; the
    /// leftovers of killed test processes go first.
    static let canCreate: Bool = {
        removeLeftovers()
        guard let probe = PrivateNetwork() else { return false }
        _ = probe
        return true
    }()

    init?() {
        name = "recipes-watch-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        guard ip(["netns", "add", name]).status == 0 else { return nil }
    }

    deinit { _ = ip(["netns", "delete", name]) }

    /// Deletes the namespaces of earlier test processes that were killed before they could delete theirs (a test run
    /// stopped with SIGKILL runs no `deinit`): each name carries its process's id, and only those of processes that
    /// no longer exist go.
    static func removeLeftovers(in directory: String = "/run/netns") {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            let parts = name.split(separator: "-")
            guard parts.count == 4, parts[0] == "recipes", parts[1] == "watch", let pid = pid_t(parts[2]),
                pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            _ = ip(["netns", "delete", name])
        }
    }

    /// Runs `ip -n <name> arguments`; the test fails when it does.
    func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async {
        let name = self.name
        let answer = await offThePool { ip(["-n", name] + arguments) }
        #expect(answer.status == 0, "ip -n \(name) \(arguments.joined(separator: " ")): \(answer.errors)",
                sourceLocation: sourceLocation)
    }

    /// Opens a `NetworkChanges` socket inside the namespace: on a thread of its own that enters it (a socket stays in
    /// the namespace it was made in), so that the rest of the process keeps its own.
    func openNotices() async throws -> NetworkChanges {
        let path = "/run/netns/\(name)"
        let result: Result<NetworkChanges, any Error> = await offThePool {
            // This thread enters the namespace and ends with it; the process's other threads keep their own.
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0, recipes_enter_network_namespace(descriptor) == 0 else {
                return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM))
            }
            close(descriptor)
            return Result { () throws(WatchError) -> NetworkChanges in try NetworkChanges() }.mapError { $0 }
        }
        return try result.get()
    }
}

@Suite("The kernel's network notices (rtnetlink), seen in a private network namespace the test makes")
struct NetworkChangesTests {
    @Test("a namespace left by a test process that no longer exists is deleted; one of a live process is kept",
          .enabled(if: PrivateNetwork.canCreate,
                   "making a network namespace needs root and a kernel that allows it (`ip netns add` failed)"))
    func leftoversRemoved() throws {
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let leftover = "recipes-watch-\(gone.processIdentifier)-0ld0ne00"
        #expect(ip(["netns", "add", leftover]).status == 0)
        let live = try #require(PrivateNetwork())
        PrivateNetwork.removeLeftovers()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        #expect(!names.contains(leftover), "the dead process's namespace is gone")
        #expect(names.contains(live.name), "this process's own namespace stays")
        if names.contains(leftover) { _ = ip(["netns", "delete", leftover]) }
    }

    @Test("adding a link, bringing it up, adding an address and a default route, then taking them away: each is a notice",
          .enabled(if: PrivateNetwork.canCreate,
                   "making a network namespace needs root and a kernel that allows it (`ip netns add` failed)"))
    func noticesInANamespace() async throws {
        let network = try #require(PrivateNetwork())
        let notices = try await network.openNotices()
        _ = notices.drain()  // the namespace's own loopback, if it announced itself
        let steps: [(String, [String])] = [
            ("a link pair appears", ["link", "add", "veth-test", "type", "veth", "peer", "name", "veth-peer"]),
            ("the far end comes up", ["link", "set", "veth-peer", "up"]),
            ("the link comes up", ["link", "set", "veth-test", "up"]),
            ("an address is added", ["addr", "add", "10.77.0.2/24", "dev", "veth-test"]),
            ("a default route is added", ["route", "add", "default", "via", "10.77.0.1", "dev", "veth-test"]),
            ("the default route goes", ["route", "del", "default"]),
            ("the address goes", ["addr", "del", "10.77.0.2/24", "dev", "veth-test"]),
            ("the link goes down", ["link", "set", "veth-test", "down"]),
            ("the link pair goes", ["link", "del", "veth-test"]),
        ]
        for (what, arguments) in steps {
            await network.run(arguments)
            #expect(await becomesReadable(notices.descriptor, within: 60), "no notice when \(what)")
            try await Task.sleep(for: .milliseconds(100))  // the rest of the burst (a link's routes go with it)
            #expect(notices.drain() > 0, "\(what): nothing counted")
        }
        #expect(!isReadable(notices.descriptor), "a notice nothing explains")
    }

    @Test("a change in another namespace is not heard",
          .enabled(if: PrivateNetwork.canCreate,
                   "making a network namespace needs root and a kernel that allows it (`ip netns add` failed)"))
    func otherNamespaceUnheard() async throws {
        let watched = try #require(PrivateNetwork())
        let other = try #require(PrivateNetwork())
        let notices = try await watched.openNotices()
        _ = notices.drain()
        await other.run(["link", "set", "lo", "up"])
        await other.run(["addr", "add", "10.78.0.2/24", "dev", "lo"])
        #expect(!(await becomesReadable(notices.descriptor, within: 1)))
    }

    @Test("a datagram of netlink messages: link, address and route messages count, wireless link events and others do not")
    func counting() {
        func message(type: Int, payload: [UInt8] = Array(repeating: 0, count: 16)) -> [UInt8] {
            let length = 16 + payload.count
            var bytes: [UInt8] = []
            bytes += withUnsafeBytes(of: UInt32(length).littleEndian, Array.init)
            bytes += withUnsafeBytes(of: UInt16(type).littleEndian, Array.init)
            bytes += [0, 0] + Array(repeating: 0, count: 8) + payload
            while bytes.count % 4 != 0 { bytes.append(0) }
            return bytes
        }
        // An `ifinfomsg` (16 bytes) followed by one attribute of `type` with 4 bytes of value.
        func link(attribute: UInt16) -> [UInt8] {
            Array(repeating: 0, count: 16) + withUnsafeBytes(of: UInt16(8).littleEndian, Array.init)
                + withUnsafeBytes(of: attribute.littleEndian, Array.init) + [1, 2, 3, 4]
        }
        let wireless = UInt16(IFLA_WIRELESS), name = UInt16(IFLA_IFNAME)
        let cases: [([UInt8], Int)] = [
            (message(type: Int(RTM_NEWLINK), payload: link(attribute: name)), 1),
            (message(type: Int(RTM_NEWLINK), payload: link(attribute: wireless)), 0),
            (message(type: Int(RTM_DELLINK)), 1),
            (message(type: Int(RTM_NEWADDR)) + message(type: Int(RTM_DELADDR)), 2),
            (message(type: Int(RTM_NEWROUTE)) + message(type: Int(RTM_DELROUTE)) + message(type: Int(RTM_NEWNEIGH)), 2),
            (message(type: Int(NLMSG_DONE)), 0),
            (Array(message(type: Int(RTM_NEWROUTE)).prefix(10)), 0),
        ]
        for (bytes, expected) in cases {
            #expect(bytes.withUnsafeBytes { NetworkChanges.changes(in: $0) } == expected, "\(bytes)")
        }
    }
}
