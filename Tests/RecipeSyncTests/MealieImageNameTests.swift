import Foundation
import MealieAPI
import RecipeModels
import Testing
@testable import RecipeSync

/// The names a Mealie destination gives images: read back exactly, their last segment the image's SHA-256 (what
/// `RecipeImage(serverURL:)` and the store take), and no other URL taken for one.
struct MealieImageNameTests {
    static let sha = String(repeating: "ab", count: 32)
    static let served = String(repeating: "0c", count: 32)
    static let id = UUID(uuidString: "6f1c3a52-0d7e-4b1a-9a3e-2c5d7f9e1b24")!

    @Test("A confirmed name and a name to upload read back as written; the recipe's image is the local SHA-256")
    func roundTrip() throws {
        let seen = ImageIdentity.Seen(key: "178", etag: "\"6d2f0a1b-1f0c\"", sha256: Self.served)
        for (name, expectedSeen) in [
            (MealieImageName(sha256: Self.sha, seen: seen), ImageIdentity.Seen(key: "178", etag: "6d2f0a1b1f0c", sha256: Self.served)),
            (MealieImageName(sha256: Self.sha, seen: nil), nil),
        ] {
            let text = name.text(baseURL: "http://mealie.local:9000/", id: Self.id)
            #expect(text.hasPrefix("http://mealie.local:9000/api/media/recipes/6f1c3a52-0d7e-4b1a-9a3e-2c5d7f9e1b24/images/"))
            let read = try #require(MealieImageName(text))
            #expect(read.sha256 == Self.sha && read.seen == expectedSeen)
            #expect(RecipeImage(serverURL: text)?.sha256 == Self.sha)
        }
    }

    @Test("Other URLs are no Mealie image name", arguments: [
        "http://127.0.0.1:8080/v1/images/\(String(repeating: "ab", count: 32))",
        "http://m/api/media/recipes/x/images/original.webp",
        "http://m/api/media/recipes/x/images/mealie-1-2/\(String(repeating: "ab", count: 32))",
        "http://m/api/media/recipes/x/images/mealie-1--\(String(repeating: "0c", count: 32))/\(String(repeating: "ab", count: 32))",
        "http://m/api/media/recipes/x/images/upload/\(String(repeating: "AB", count: 32))",
    ])
    func others(_ url: String) {
        #expect(MealieImageName(url) == nil)
    }
}
