import Dispatch

/// Runs blocking file-system calls (`write(2)`, `fsync`, `rename`) on Dispatch threads, never on Swift's cooperative
/// pool, so a slow disk cannot stall other requests (a 2-core machine has only two cooperative threads).
///
/// A dependency-free stand-in for NIO's `NIOThreadPool`: the `ReferenceServer` target does not depend on `NIOPosix`.
struct BlockingFileIO: Sendable {
    /// Marks work running on `queue`, so tests can prove where it ran.
    static let marker = DispatchSpecificKey<Bool>()

    /// A concurrent queue: each upload awaits its own calls one at a time, so its writes stay in order.
    private let queue: DispatchQueue

    /// The process-wide instance used by every image store.
    static let shared = BlockingFileIO(label: "recipes-server.blocking-file-io")

    /// Creates a runner with its own queue.
    init(label: String) {
        queue = DispatchQueue(label: label, qos: .utility, attributes: .concurrent)
        queue.setSpecific(key: Self.marker, value: true)
    }

    /// Runs `work` on the queue and resumes the caller with its result once it is done.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws(ServerError) -> T) async throws(ServerError) -> T {
        let result: Result<T, ServerError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(ServerError) { continuation.resume(returning: .success(try work())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
