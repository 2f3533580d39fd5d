import Foundation
import Locking
import Synchronization

/// The libcurl-backed HTTP client: one per process, shared by every upload; connections are kept alive and reused.
///
/// Requests run on one dedicated thread driving a libcurl multi handle, at most
/// `HTTPClientConfiguration.maxConcurrentTransfers` at a time. Cancelling the calling task aborts its transfer
/// at once (the thread is woken with `curl_multi_wakeup`), even when the server has stopped sending.
public final class HTTPClient: Sendable {
    private let loop: TransferLoop
    private let settings: ClientSettings
    private let nextID = Atomic<UInt64>(1)
    /// Easy handles of finished requests, reset and reused by the next ones (creating and freeing one per request
    /// was a sixtieth of a 1,000-recipe sync's CPU); at most `spareLimit`.
    private let spareHandles = Locked<[CurlEasy]>([])
    private let spareLimit: Int

    /// The configuration the client was made with.
    public let configuration: HTTPClientConfiguration

    /// Creates a client; throws if libcurl cannot start or the CA bundle cannot be read.
    ///
    /// A `caBundlePath` is added to the system's CA store (both go to libcurl as one CURLOPT_CAINFO_BLOB);
    /// peer and host-name verification are always on.
    public init(configuration: HTTPClientConfiguration) throws(TransportError) {
        try CurlGlobal.ensureInitialised()
        self.configuration = configuration
        settings = try ClientSettings(configuration, systemBundlePath: CurlGlobal.defaultCAInfoPath ?? "/etc/ssl/certs/ca-certificates.crt")
        let concurrent = max(1, configuration.maxConcurrentTransfers)
        loop = try TransferLoop(
            maxConcurrent: concurrent, maxConnections: max(8, 2 * concurrent),
            haltingStatuses: configuration.haltingStatuses)
        spareLimit = 2 * concurrent
        if let starting = configuration.startingConcurrentTransfers { loop.setConcurrency(starting) }
    }

    /// Starts loading and initialising libcurl (dlopen, then `curl_global_init` with its TLS set-up: a few
    /// milliseconds) on a thread of its own and returns at once, for a caller that will make a client soon and
    /// has other start-up work meanwhile. `init` waits for it if it is still under way, and reports its failure.
    public static func prepare() {
        Thread.detachNewThread { try? CurlGlobal.ensureInitialised() }
    }

    /// Waits until a `prepare()` started earlier has finished (at once when it has): a process must not exit while
    /// libcurl's initialisation runs on another thread, as its exit handlers would tear OpenSSL and libldap down
    /// under that thread (a crash at exit, seen as exit 139 of an offline `recipes sync`).
    public static func finishPreparing() {
        try? CurlGlobal.ensureInitialised()
    }

    /// Runs at most `count` transfers at once from now on, never more than the configuration's
    /// `maxConcurrentTransfers` (the ceiling; a client starts at it): for a caller that adapts its connections to the
    /// link it measures (`ConnectionPlan`).
    public func setConcurrentTransfers(_ count: Int) {
        loop.setConcurrency(count)
    }

    /// The transport's thread as a task executor: tasks that prefer it run between libcurl's polls, with no
    /// thread hop for a request or its answer.
    public var taskExecutor: any TaskExecutor { loop }

    deinit {
        loop.shutdown()
    }

    /// Performs one request and returns the server's answer, whatever its status (non-2xx is not thrown).
    ///
    /// `progress` is called on the transport thread as the body goes out (keep it quick). Cancelling the calling
    /// task aborts the transfer within milliseconds and throws a `TransportError` of kind `.cancelled`.
    /// Every failure without an HTTP answer throws a `TransportError`; its message never contains the token.
    ///
    /// With `sink`, the body of a `2xx` answer is handed to it chunk by chunk as it arrives (memory stays flat however
    /// large it is) and the returned answer's `body` is empty; the body of any other answer is kept as usual.
    public func send(_ request: HTTPRequest,
                     progress: (@Sendable (TransferProgress) -> Void)? = nil,
                     streamingSuccessTo sink: (any ResponseBodySink)? = nil) async throws(TransportError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled() }
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let spare = spareHandles.withLock { $0.popLast() }
        let transfer = try CurlTransfer(
            id: id, request: request, settings: settings, easy: spare, progress: progress, sink: sink)
        let loop = self.loop
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        // With the result in hand the loop is done with the handle (it left the multi handle first).
        let easy = transfer.easy
        spareHandles.withLock { spares in
            if spares.count < spareLimit { spares.append(easy) }
        }
        return try result.get()
    }
}

extension HTTPClient: CustomReflectable {
    /// Only the (token-redacting) configuration: the settings derived from it hold the token in clear.
    public var customMirror: Mirror {
        Mirror(self, children: ["configuration": configuration], displayStyle: .class)
    }
}
