import Testing
@testable import RecipeModels

@Suite("RecipeImage(serverURL:): the SHA-256 is the URL's last path segment, before any query or fragment")
struct ServerImageURLTests {
    static let sha = String(repeating: "ab12", count: 16)

    @Test("URLs that name an image: the SHA-256 read in lowercase, the URL kept as it was", arguments: [
        "http://127.0.0.1:8080/v1/images/\(sha)",
        "https://recipes.example/v1/images/\(sha.uppercased())",
        "https://recipes.example/v1/images/\(sha)?size=large",
        "https://recipes.example/v1/images/\(sha)#top",
        "https://recipes.example/a/b/c/\(sha)?x=/y#z/w",
        sha,
    ])
    func namesAnImage(_ url: String) throws {
        let image = try #require(RecipeImage(serverURL: url))
        #expect(image.sha256 == Self.sha)
        #expect(image.serverURL == url)
    }

    @Test("URLs that do not end in a SHA-256 name no image", arguments: [
        "https://recipes.example/v1/images/\(sha)/",
        "https://recipes.example/v1/images/\(sha.dropLast())",
        "https://recipes.example/v1/images/\(sha)0",
        "https://recipes.example/v1/images/\(sha.dropLast())g",
        "https://recipes.example/v1/images/?\(sha)",
        "https://recipes.example/\(sha)/image.png",
        "",
        "/",
    ])
    func namesNoImage(_ url: String) {
        #expect(RecipeImage(serverURL: url) == nil)
    }
}
