import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The tests below wait on descriptors and processes with blocking calls. Each runs on a thread of its own
// (`offThePool`), never on Swift's cooperative threads: on a 2-core machine those are two, and an in-process server
// of a test running beside these needs them.

/// Runs `body` on a new thread and returns what it returned.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Whether `descriptor` becomes readable within `seconds` (a generous bound: it keeps a broken test from hanging, it
/// times nothing).
func becomesReadable(_ descriptor: Int32, within seconds: Double) async -> Bool {
    await offThePool { readableNow(descriptor, within: seconds) }
}

/// Whether `descriptor` is readable right now.
func isReadable(_ descriptor: Int32) -> Bool { readableNow(descriptor, within: 0) }

/// `poll(2)` on `descriptor` for at most `seconds`.
private func readableNow(_ descriptor: Int32, within seconds: Double) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    let deadline = Date() + seconds
    while true {
        let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
        let ready = poll(&entry, 1, left)
        if ready > 0 { return true }
        if ready == 0 || (ready < 0 && errno != EINTR) { return false }
    }
}

/// Runs `/usr/sbin/ip` (or `/sbin/ip`) with `arguments` to its end; its exit status and standard error.
func ip(_ arguments: [String]) -> (status: Int32, errors: String) {
    let process = Process()
    let path = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let path else { return (127, "ip not found (install iproute2)") }
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    do { try process.run() } catch { return (127, "\(error)") }
    let data = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
