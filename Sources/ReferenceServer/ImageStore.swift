import Crypto
import Foundation
import NIOCore
import SystemFiles

/// The image files under `DIR/images/`: each stored as `images/<sha256>`, written first to `images/.partial/`.
public struct ImageStore: Sendable {
    /// The media types an image may have.
    public static let contentTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp"]

    /// `DIR/images`.
    public let directory: String
    /// `DIR/images/.partial`, where bodies are streamed before they are verified.
    public let partialDirectory: String
    /// Whether to `fsync` each image before renaming it into place.
    public let synchronous: Bool

    /// Creates the directories if needed and removes partial bodies left by an earlier run.
    public init(directory: String, synchronous: Bool = true) throws(ServerSetupError) {
        self.directory = directory
        self.partialDirectory = directory + "/.partial"
        self.synchronous = synchronous
        do {
            try FileManager.default.createDirectory(atPath: partialDirectory, withIntermediateDirectories: true)
            for leftover in try FileManager.default.contentsOfDirectory(atPath: partialDirectory) {
                try? FileManager.default.removeItem(atPath: partialDirectory + "/" + leftover)
            }
        } catch {
            throw ServerSetupError("Cannot prepare the image directory \(directory). Check --data is a writable directory.")
        }
    }

    /// The final path of an image.
    public func path(sha256: String) -> String { directory + "/" + sha256 }

    /// Starts receiving one body of `expectedBytes`; its partial file is created when the first bytes are written.
    func beginUpload(expectedBytes: Int64) -> ImageUpload {
        ImageUpload(partialPath: partialDirectory + "/" + UUID().uuidString + ".part", synchronous: synchronous,
                    expectedBytes: expectedBytes)
    }
}
