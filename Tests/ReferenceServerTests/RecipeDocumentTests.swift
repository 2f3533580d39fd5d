import Foundation
import Testing
@testable import ReferenceServer

@Suite("Recipe document validation")
struct RecipeDocumentTests {
    let id = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
    let sha = String(repeating: "ab", count: 32)

    private func body(_ changes: [String: Any]) -> Data {
        var object: [String: Any] = ["@context": "https://schema.org", "@type": "Recipe", "identifier": id, "version": 3, "name": "Soup"]
        for (key, value) in changes { object[key] = value }
        return try! JSONSerialization.data(withJSONObject: object)
    }

    private func problem(_ data: Data, path: String? = nil) -> String? {
        do {
            _ = try RecipeDocument.validate(data, pathIdentifier: path ?? id, authority: "127.0.0.1:8080")
            return nil
        } catch {
            #expect(error.status == .unprocessableContent)
            return error.message
        }
    }

    @Test("a valid recipe yields its identifier, version, name and image hash; the path uuid may differ in case")
    func valid() throws {
        let recipe = try RecipeDocument.validate(
            body(["image": "http://127.0.0.1:8080/v1/images/\(sha)"]), pathIdentifier: id.lowercased(), authority: "127.0.0.1:8080")
        #expect(recipe == RecipeDocument(identifier: id, version: 3, name: "Soup", imageSHA256: sha, dateModified: nil))
    }

    @Test("each invalid field gets a 422 saying which field is wrong", arguments: [
        (#"{"@type": "HowTo"}"#, "@type"),
        (#"{"identifier": "11111111-1111-1111-1111-111111111111"}"#, "differs from the UUID in the path"),
        (#"{"identifier": 7}"#, "identifier"),
        (#"{"version": 0}"#, "version"),
        (#"{"version": 1.5}"#, "version"),
        (#"{"version": "7"}"#, "version"),
        (#"{"version": true}"#, "version"),
        (#"{"name": "  "}"#, "name"),
        (#"{"name": null}"#, "name"),
        (#"{"image": "not a url"}"#, "image"),
        (#"{"image": "http://h/v1/images/xyz"}"#, "image"),
        (#"{"image": "ftp://h/v1/images/abababababababababababababababababababababababababababababababab"}"#, "image"),
    ])
    func invalid(patch: String, field: String) throws {
        let changes = try #require(JSONSerialization.jsonObject(with: Data(patch.utf8)) as? [String: Any])
        let message = problem(body(changes))
        #expect(message?.contains(field) == true, "\(message ?? "accepted")")
    }

    @Test("an image URL elsewhere than this server, as the request reached it, is a 422 naming the URL it must be")
    func imageElsewhere() {
        for url in ["http://127.0.0.1:8081/v1/images/\(sha)", "http://evil.example/v1/images/\(sha)",
                    "https://127.0.0.1:8080/v1/images/\(sha)", "http://127.0.0.1:8080@evil.example/v1/images/\(sha)",
                    "http://127.0.0.1:80800/v1/images/\(sha)"] {
            let message = problem(body(["image": url]))
            #expect(message?.hasPrefix("\"image\" must be one of this server's image URLs, http://127.0.0.1:8080/v1/images/<sha256>") == true,
                    "\(url): \(message ?? "accepted")")
        }
        #expect(problem(body(["image": "HTTP://127.0.0.1:8080/v1/images/\(sha)"])) == nil)
    }

    @Test("a body that is not a JSON object is a 422")
    func notJSON() {
        #expect(problem(Data("[1,2]".utf8))?.contains("not a JSON object") == true)
        #expect(problem(Data("{".utf8))?.contains("not valid JSON") == true)
    }

    @Test("sha256 names are exactly 64 lowercase hex digits")
    func shaNames() {
        #expect(RecipeDocument.isSHA256(sha))
        #expect(!RecipeDocument.isSHA256(sha.uppercased()))
        #expect(!RecipeDocument.isSHA256(String(sha.dropLast())))
    }
}
