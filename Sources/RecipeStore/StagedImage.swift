import RecipeModels

/// An image copied into the media folder under a temporary name, checked and hashed, not yet attached.
public struct StagedImage: Sendable, Equatable {
    /// Lower-case hex SHA-256 of the bytes.
    public var sha256: String
    /// The format recognised from the bytes.
    public var format: ImageFormat
    /// The size in bytes.
    public var byteCount: Int64
    /// The temporary file inside the media folder.
    public var temporaryPath: String

    /// The final file name in the media folder.
    public var fileName: String { ImageReference.fileName(sha256: sha256, format: format) }
}
