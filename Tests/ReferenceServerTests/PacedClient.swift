import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Slow and silent clients over raw sockets, each run on a thread of its own (never on Swift's cooperative pool).
enum PacedClient {
    /// Sends a request head, then `chunks` of body with `pause` seconds after each, then reads the answer.
    /// A send that fails (the server closed) stops the sending; what the server answered is still read.
    static func exchange(port: Int, method: String, path: String, headers: [String: String], declaredLength: Int,
                         chunks: [Data], pause: Double, readTimeout: Double = 60) async -> RawOutcome {
        await onThread {
            let fd = RawHTTPClient.connectSocket(port: port, readTimeout: readTimeout)
            guard fd >= 0 else { return .reset }
            defer { close(fd) }
            var allHeaders = headers
            allHeaders["Content-Length"] = String(declaredLength)
            guard RawHTTPClient.sendAll(fd, RawHTTPClient.requestHead(port: port, method: method, path: path, headers: allHeaders)) else {
                return RawHTTPClient.readAnswer(fd, method: method)
            }
            for chunk in chunks {
                guard RawHTTPClient.sendAll(fd, chunk) else { break }
                usleep(useconds_t(pause * 1_000_000))
            }
            return RawHTTPClient.readAnswer(fd, method: method)
        }
    }

    /// Opens `count` connections (sending `prefix` on each, e.g. a full request), then waits up to `waitUpTo`
    /// seconds for the server to close them; returns how many it closed (end of stream or reset) in that time.
    static func connectionsClosedByServer(port: Int, count: Int, prefix: Data = Data(), waitUpTo: Double) async -> Int {
        await onThread {
            var descriptors: [Int32] = []
            defer { for fd in descriptors { close(fd) } }
            for _ in 0..<count {
                let fd = RawHTTPClient.connectSocket(port: port, readTimeout: waitUpTo)
                guard fd >= 0 else { return 0 }
                descriptors.append(fd)
                if !prefix.isEmpty, !RawHTTPClient.sendAll(fd, prefix) { return 0 }
            }
            var open = Set(descriptors)
            let deadline = Date().addingTimeInterval(waitUpTo)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !open.isEmpty, Date() < deadline {
                var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                let ready = poll(&polled, nfds_t(polled.count), 100)
                guard ready > 0 else { continue }
                for entry in polled where entry.revents != 0 {
                    // An answer to `prefix` is read and dropped; 0 bytes (or an error) means the server closed it.
                    let count = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { open.remove(entry.fd) }
                }
            }
            return count - open.count
        }
    }

    /// Runs blocking work on a new thread and returns its result.
    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}
