import Foundation

/// A `multipart/form-data` body (RFC 7578), as Mealie's image upload and zip import read them: built whole in
/// memory (an image is at most the store's 20 MiB).
public struct MultipartForm: Sendable, Equatable {
    /// One part of the form.
    public enum Part: Sendable, Equatable {
        /// A text field.
        case field(name: String, value: String)
        /// A file, with the name and type the form gives it.
        case file(name: String, fileName: String, contentType: String, bytes: Data)
    }

    /// The boundary between parts.
    public let boundary: String
    /// The encoded body.
    public let body: Data

    /// The request's `Content-Type`, naming the boundary.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Encodes `parts` between `boundary` delimiters; nil when `boundary` is not 1 to 70 letters, digits, `-` or `_`,
    /// or occurs in a part (draw another: with `randomBoundary` that happens about once in 2^128 forms).
    public init?(boundary: String, parts: [Part]) {
        guard (1...70).contains(boundary.utf8.count),
              boundary.utf8.allSatisfy({ Self.boundaryCharacters.contains($0) })
        else { return nil }
        let delimiter = Data("--\(boundary)".utf8)
        var body = Data()
        for part in parts {
            let content: Data
            body.append(delimiter)
            switch part {
            case .field(let name, let value):
                body.append(Data("\r\nContent-Disposition: form-data; name=\"\(Self.quoted(name))\"\r\n\r\n".utf8))
                content = Data(value.utf8)
            case .file(let name, let fileName, let contentType, let bytes):
                body.append(Data(("\r\nContent-Disposition: form-data; name=\"\(Self.quoted(name))\"; filename=\"\(Self.quoted(fileName))\""
                    + "\r\nContent-Type: \(Self.headerValue(contentType))\r\n\r\n").utf8))
                content = bytes
            }
            if content.range(of: delimiter) != nil { return nil }
            body.append(content)
            body.append(Data("\r\n".utf8))
        }
        body.append(delimiter)
        body.append(Data("--\r\n".utf8))
        self.boundary = boundary
        self.body = body
    }

    /// A boundary of 32 random hexadecimal digits after a fixed prefix, from `generator` (the caller's random
    /// source, so that tests can fix it).
    public static func randomBoundary(using generator: inout some RandomNumberGenerator) -> String {
        let high = UInt64.random(in: .min ... .max, using: &generator)
        let low = UInt64.random(in: .min ... .max, using: &generator)
        return "recipes-" + hex(high) + hex(low)
    }

    /// The form of Mealie's image upload (`PUT /api/recipes/{slug}/image`): the field `extension` (`jpg`, `png`, `gif`
    /// or `webp`: Mealie names the file it converts by it) and the file `image`.
    public static func imageUpload(_ image: Data, fileExtension: String, mediaType: String, boundary: String) -> MultipartForm? {
        MultipartForm(boundary: boundary, parts: [
            .field(name: "extension", value: fileExtension),
            .file(name: "image", fileName: "original.\(fileExtension)", contentType: mediaType, bytes: image),
        ])
    }

    /// The form of Mealie's zip import (`POST /api/recipes/create/zip`): the file `archive`.
    public static func recipeImport(_ archive: Data, boundary: String) -> MultipartForm? {
        MultipartForm(boundary: boundary, parts: [
            .file(name: "archive", fileName: "recipe.zip", contentType: "application/zip", bytes: archive),
        ])
    }

    private static let boundaryCharacters = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A name or file name inside a quoted header parameter: `"`, CR and LF percent-encoded, as the HTML standard's
    /// form encoding does.
    private static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A header value without line breaks.
    private static func headerValue(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
