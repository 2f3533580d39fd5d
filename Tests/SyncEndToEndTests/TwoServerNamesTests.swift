import Foundation
import RecipesTestSupport
import Testing

/// A household whose devices name one server two ways (`127.0.0.1` on the laptop, `localhost` on the tablet), with a
/// token, as the first hour tells people to set. The reference server refuses a document naming an image URL not its
/// own (`http://<Host>/v1/images/<sha256>`), so a device must name an image by its SHA-256 on its own server.url, never
/// by the URL the document it pulled carried; and it fetches such an image from its own server.url, with the token
/// (which goes to server.url's origin only: fetched from the host the document names, it was refused with a `401`).
@Suite("one server under two names: every device names and fetches an image on its own server.url")
struct TwoServerNamesTests {
    static let token = "two-names-token-0123456789"

    @Test("a recipe with an image, edited on a device that names the server otherwise, is sent and comes back, with a token")
    func editUnderAnotherName() throws {
        let laptop = Client()
        laptop.token = Self.token
        let server = try laptop.startServer(token: Self.token)
        defer { server.stop() }
        try laptop.edit(["new \"Curry\""])
        try laptop.edit(["image set 1 \(laptop.image("curry.png", size: 8192, seed: 5))"])
        #expect(try laptop.run(["sync"]).status == 0)
        let sha = try #require(try laptop.rows().first?.imageSHA256)

        let tablet = Client(serverURL: "http://localhost:\(server.port)")
        tablet.token = Self.token
        let restore = try tablet.run(["sync"])
        #expect(restore.status == 0, "\(restore)")
        #expect(try tablet.rows().first?.imageSHA256 == sha, "the tablet restored the image")
        #expect(server.requests().filter { $0.status == 401 }.isEmpty, "an image was fetched without the token")

        // The tablet's edit names the image on localhost, as its server.url says (before, it named 127.0.0.1, the
        // URL the laptop's upload had been given, and the server answered 422).
        try tablet.edit(["title 1 Green curry"])
        let push = try tablet.run(["sync"])
        #expect(push.status == 0, "\(push)")
        let row = try #require(try tablet.rows().first)
        #expect(row.state == "synced" && row.serverVersion == 2, "\(row)")

        // The laptop pulls it, edits again and sends it, naming the image on 127.0.0.1 once more.
        #expect(try laptop.run(["sync"]).status == 0)
        #expect(try laptop.rows().first?.title == "Green curry")
        try laptop.edit(["title 1 Red curry"])
        let again = try laptop.run(["sync"])
        #expect(again.status == 0, "\(again)")
        #expect(try laptop.rows().first.map { $0.state == "synced" && $0.serverVersion == 3 && $0.imageSHA256 == sha } == true)
        let stored = try #require(try server.storedRecipes().first)
        #expect(stored.version == 3 && stored.name == "Red curry", "\(stored)")
        // The image went up once: the tablet's push found it on the server and sent no bytes again.
        #expect(server.requests().filter { $0.method == "PUT" && $0.isImage }.count == 1)
    }
}
