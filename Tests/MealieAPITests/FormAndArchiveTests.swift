import Foundation
import MealieAPI
import Testing

@Suite("MultipartForm and RecipeArchive: the bodies of Mealie's image upload and zip import")
struct FormAndArchiveTests {
    @Test("The image upload form is RFC 7578: the extension field, then the image file with its type, byte for byte")
    func imageUploadForm() throws {
        let image = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x00, 0xFF])
        let form = try #require(MultipartForm.imageUpload(image, fileExtension: "png", mediaType: "image/png", boundary: "b0undary"))
        var expected = Data(("--b0undary\r\nContent-Disposition: form-data; name=\"extension\"\r\n\r\npng\r\n"
            + "--b0undary\r\nContent-Disposition: form-data; name=\"image\"; filename=\"original.png\"\r\n"
            + "Content-Type: image/png\r\n\r\n").utf8)
        expected.append(image)
        expected.append(Data("\r\n--b0undary--\r\n".utf8))
        #expect(form.body == expected)
        #expect(form.contentType == "multipart/form-data; boundary=b0undary")
    }

    @Test("A boundary that occurs in a part, or that RFC 2046 does not allow, makes no form", arguments: [
        "", String(repeating: "a", count: 71), "with space", "quote\"", "é",
    ])
    func badBoundaries(boundary: String) {
        #expect(MultipartForm(boundary: boundary, parts: [.field(name: "a", value: "b")]) == nil)
    }

    @Test("The boundary is checked against every part's bytes")
    func boundaryCollision() {
        let bytes = Data("...--recipes-0123\r\n...".utf8)
        #expect(MultipartForm.recipeImport(bytes, boundary: "recipes-0123") == nil)
        #expect(MultipartForm.recipeImport(bytes, boundary: "recipes-0124") != nil)
    }

    @Test("Quotes and line breaks in names cannot break out of their header")
    func quotedNames() throws {
        let form = try #require(MultipartForm(boundary: "b", parts: [
            .file(name: "a\"b", fileName: "x\r\nInjected: yes", contentType: "image/png\r\nX: y", bytes: Data()),
        ]))
        let text = String(decoding: form.body, as: UTF8.self)
        #expect(text.contains("name=\"a%22b\"; filename=\"x%0D%0AInjected: yes\""))
        #expect(text.contains("Content-Type: image/pngX: y\r\n"))
        #expect(!text.contains("\r\nInjected"))
    }

    @Test("Random boundaries come from the generator given, 32 hex digits after a prefix")
    func randomBoundary() {
        var first = FixedGenerator(seed: 1)
        var second = FixedGenerator(seed: 1)
        let boundary = MultipartForm.randomBoundary(using: &first)
        #expect(boundary == MultipartForm.randomBoundary(using: &second))
        #expect(boundary.hasPrefix("recipes-") && boundary.count == 40)
        #expect(MultipartForm(boundary: boundary, parts: []) != nil)
    }

    @Test("CRC-32 of the standard check input is 0xCBF43926")
    func crc() {
        // The check value of CRC-32/ISO-HDLC, through a one-entry archive's local header.
        let archive = RecipeArchive.zip(recipeJSON: Data("123456789".utf8))
        #expect(Array(archive.dropFirst(14).prefix(4)) == [0x26, 0x39, 0xF4, 0xCB])
    }

    @Test("The archive is a zip Python's zipfile reads back: one stored recipe.json with the exact bytes")
    func archiveReadsBack() throws {
        let json = Data(#"{"id":"6c287c71-7993-479e-8872-f4af1626f916","name":"Crème brûlée"}"#.utf8)
        let archive = RecipeArchive.zip(recipeJSON: json)
        #expect(archive == RecipeArchive.zip(recipeJSON: json)) // the same bytes every time
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("recipe.zip")
        try archive.write(to: path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            assert z.namelist() == ["recipe.json"], z.namelist()
            assert z.getinfo("recipe.json").compress_type == zipfile.ZIP_STORED
            sys.stdout.buffer.write(z.read("recipe.json"))
            """, path.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let read = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(read == json)
    }
}

/// A deterministic generator (SplitMix64) for the boundary test.
struct FixedGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
