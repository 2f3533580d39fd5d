import Foundation
import RecipeStore

/// A fresh folder under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory {
    /// The folder.
    public let url: URL

    /// Creates the folder. One that cannot be made (a full disk, say) is not a crash of the test process: the test's
    /// first file operation in it fails instead, naming the path.
    public init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of a recipes home inside the folder (created by the first store that opens it).
    public var homePath: String { url.appendingPathComponent("home").path }

    /// That home, as given explicitly with `--home`.
    public var home: RecipesHome { RecipesHome(url: URL(fileURLWithPath: homePath), isExplicit: true) }

    /// Writes `bytes` to a file named `name` in the folder and returns its path.
    public func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = url.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }
}

/// Bytes that start like a PNG, followed by `size - 8` filler bytes derived from `seed`.
///
/// The bytes after the signature repeat every 256 bytes, so that a large image is made by doubling one period
/// (copies of memory), not byte by byte: a 21 MiB image made byte by byte in a debug build under the thread sanitizer
/// took a test server longer than the client's 30-s low-speed limit.
public func pngBytes(size: Int = 64, seed: UInt8 = 1) -> [UInt8] {
    let count = max(0, size - 8)
    var pattern = (0..<256).map { UInt8(truncatingIfNeeded: $0) &+ seed }
    while pattern.count < count { pattern.append(contentsOf: pattern) }
    var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    bytes.reserveCapacity(8 + count)
    bytes.append(contentsOf: pattern.prefix(count))
    return bytes
}

/// The contents of the file at `path`, or nil when it cannot be read.
public func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// The path of a product built next to the test bundle (e.g. `.build/debug/recipes`), for tests that run the
/// binaries.
public func builtProduct(_ name: String) -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/\(name)")
}

/// Runs `body` on a thread of its own and waits up to `seconds` for it to return; past that, `release` is called
/// every 0.1 s (to unblock it, e.g. by opening the other end of a named pipe) until it returns. Answers whether it
/// returned within the bound, and what it returned. The bound is generous: it keeps a test that would hang from
/// hanging, it does not time anything.
public func runBounded<Value: Sendable>(
    seconds: Double, release: () -> Void, _ body: @escaping @Sendable () -> Value
) -> (inTime: Bool, value: Value) {
    let outcome = BoundedOutcome<Value>()
    Thread {
        outcome.value = body()
        outcome.done.signal()
    }.start()
    var inTime = true
    if outcome.done.wait(timeout: .now() + seconds) == .timedOut {
        inTime = false
        repeat { release() } while outcome.done.wait(timeout: .now() + 0.1) == .timedOut
    }
    return (inTime, outcome.value!)
}

/// Opens the named pipe at `path` for writing without waiting and closes it at once: a reader blocked in `open`
/// (or in `read`) then sees the end of the pipe. Does nothing when no reader has it open.
public func releaseReader(ofPipe path: String) {
    let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
    if descriptor >= 0 { close(descriptor) }
}

/// What a `runBounded` body returned, handed from its thread to the waiting one.
// @unchecked Sendable: `value` is written once by the body's thread before it signals `done`, and read only after
// `done` was waited for, so the semaphore orders the write before the read.
private final class BoundedOutcome<Value>: @unchecked Sendable {
    var value: Value?
    let done = DispatchSemaphore(value: 0)
}
