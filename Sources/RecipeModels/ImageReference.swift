/// The image attached to a recipe: a local copy named by its content hash, and what the server has of it.
public struct ImageReference: Sendable, Equatable {
    /// Lower-case hex SHA-256 of the image bytes; the server stores the image under this name.
    public var sha256: String
    /// The format recognised from the bytes.
    public var format: ImageFormat
    /// The size in bytes.
    public var byteCount: Int64
    /// The local copy's file name inside `<home>/media/`, or nil once the server has it and the copy is gone.
    public var localFileName: String?

    /// Creates an image reference.
    public init(sha256: String, format: ImageFormat, byteCount: Int64, localFileName: String?) {
        self.sha256 = sha256
        self.format = format
        self.byteCount = byteCount
        self.localFileName = localFileName
    }

    /// The file name a local copy of these bytes gets: `<sha256>.<ext>`.
    public static func fileName(sha256: String, format: ImageFormat) -> String {
        "\(sha256).\(format.fileExtension)"
    }
}
