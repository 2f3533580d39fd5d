import Testing
@testable import RecipeModels

@Suite("Image formats are recognised by their bytes")
struct ImageFormatTests {
    @Test("each of the four signatures is recognised")
    func recognisesSignatures() {
        #expect(ImageFormat.detect([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]) == .jpeg)
        #expect(ImageFormat.detect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageFormat.detect(Array("GIF89a....".utf8)) == .gif)
        #expect(ImageFormat.detect(Array("GIF87a".utf8)) == .gif)
        #expect(ImageFormat.detect(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
    }

    @Test("text, truncated signatures and other RIFF files are not images")
    func rejectsOthers() {
        #expect(ImageFormat.detect(Array("hello world, not an image".utf8)) == nil)
        #expect(ImageFormat.detect([0x89, 0x50, 0x4E]) == nil)
        #expect(ImageFormat.detect([UInt8]()) == nil)
        #expect(ImageFormat.detect(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == nil)
        #expect(ImageFormat.detect(Array("GIF90a".utf8)) == nil)
    }

    @Test("media types map both ways")
    func mediaTypes() {
        for format in ImageFormat.allCases {
            #expect(ImageFormat(mediaType: format.mediaType) == format)
        }
        #expect(ImageFormat.png.mediaType == "image/png")
        #expect(ImageFormat(mediaType: "text/plain") == nil)
        #expect(ImageReference.fileName(sha256: "ab", format: .jpeg) == "ab.jpg")
    }
}
