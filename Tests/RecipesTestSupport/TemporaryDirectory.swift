import Foundation
import RecipeStore

/// A fresh folder under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory {
    /// The folder.
    public let url: URL

    /// Creates the folder.
    public init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
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
public func pngBytes(size: Int = 64, seed: UInt8 = 1) -> [UInt8] {
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<max(0, size - 8)).map { UInt8(truncatingIfNeeded: $0) &+ seed }
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
