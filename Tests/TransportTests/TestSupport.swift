import Foundation
import HTTPTestSupport
import Transport

/// Small helpers shared by the transport's I/O tests.
enum TestSupport {
    /// A fresh temporary directory, unique to the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("transport-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `size` deterministic pseudo-random bytes to a new file and returns its path and FNV-1a digest.
    static func makeFile(size: Int, in directory: URL) throws -> (path: String, digest: UInt64) {
        let url = directory.appendingPathComponent("body-\(size).bin")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var digest = FNV1a()
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        var remaining = size
        while remaining > 0 {
            let count = min(remaining, 1 << 20)
            var chunk = [UInt8](repeating: 0, count: count)
            for index in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                chunk[index] = UInt8(truncatingIfNeeded: state >> 33)
            }
            chunk.withUnsafeBytes { digest.add($0) }
            try handle.write(contentsOf: chunk)
            remaining -= count
        }
        return (url.path, digest.value)
    }

    /// The default low-speed limit of `client`: a stalled transfer that nothing cancels fails as a timeout after it. Long,
    /// so that a test telling a cancellation from this limit by half of it does so on a loaded machine too, where the
    /// test's own task may wait many seconds for a thread of the cooperative pool.
    static let lowSpeedTime: Duration = .seconds(120)

    /// A client with short timeouts suited to tests.
    static func client(credentials: BearerCredentials? = nil, caBundlePath: String? = nil,
                       lowSpeedTime: Duration = Self.lowSpeedTime, maxConcurrentTransfers: Int = 4) throws -> HTTPClient {
        try HTTPClient(configuration: HTTPClientConfiguration(
            userAgent: "recipes/test", credentials: credentials, caBundlePath: caBundlePath,
            connectTimeout: .seconds(5),
            lowSpeedTime: lowSpeedTime, maxConcurrentTransfers: maxConcurrentTransfers))
    }

    /// A loopback port nothing listens on (bound, then closed).
    static func closedPort() throws -> Int {
        let server = try LoopbackHTTPServer()
        server.stop()
        return server.port
    }

    /// The directory of the test fixtures (scripts run at test time).
    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }
}
