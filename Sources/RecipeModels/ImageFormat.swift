/// The image formats a recipe may carry, recognised by their leading bytes rather than by file name.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg
    case png
    case gif
    case webp

    /// The media type sent as `Content-Type` when the image is uploaded.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        }
    }

    /// The file name extension used for local copies.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        }
    }

    /// The number of leading bytes `detect(_:)` needs to recognise every format.
    public static let signatureLength = 12

    /// Recognises the format from the first bytes of a file, or returns nil when they match none.
    ///
    /// JPEG starts `FF D8 FF`; PNG with its 8-byte signature; GIF with `GIF87a`/`GIF89a`;
    /// WebP with `RIFF????WEBP`.
    public static func detect<Bytes: Collection>(_ bytes: Bytes) -> ImageFormat? where Bytes.Element == UInt8 {
        let head = Array(bytes.prefix(signatureLength))
        func starts(with prefix: [UInt8]) -> Bool {
            head.count >= prefix.count && Array(head.prefix(prefix.count)) == prefix
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if head.count >= 12, Array(head[0..<4]) == Array("RIFF".utf8), Array(head[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        return nil
    }

    /// Finds the format for a media type such as `image/png`, or nil when it is not one of the four.
    public init?(mediaType: String) {
        guard let format = ImageFormat.allCases.first(where: { $0.mediaType == mediaType.lowercased() }) else {
            return nil
        }
        self = format
    }
}
