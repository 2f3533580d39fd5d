import Foundation
import RecipesTestSupport
import Testing

/// A recipe whose image the server cannot serve (its file lost on the server) on a new device: the recipes after it
/// arrive, `status` says which one is still to come and why, and once the server has the image again the next sync
/// brings it — through the binaries, with a token.
@Suite("one recipe whose image cannot be fetched holds back no other, and status says it is still to come")
struct ImageToComeTests {
    static let token = "image-to-come-token-0123456789"

    @Test("a fresh device restores every recipe but the one whose image is gone, status names it, the next sync brings it")
    func imageGoneOnTheServer() throws {
        let laptop = Client()
        laptop.token = Self.token
        let server = try laptop.startServer(token: Self.token)
        defer { server.stop() }
        try laptop.edit(["new Soup", "new Curry", "new Bread"])
        for id in 1...3 {
            try laptop.edit(["image set \(id) \(laptop.image("photo\(id).png", size: 4096, seed: id))"])
        }
        #expect(try laptop.run(["sync", "--jobs", "1"]).status == 0)
        let curry = try #require(try laptop.rows().first { $0.title == "Curry" })
        let sha = try #require(curry.imageSHA256)
        let file = server.dataDirectory.appendingPathComponent("images").appendingPathComponent(sha)
        let bytes = try Data(contentsOf: file)
        try FileManager.default.removeItem(at: file)

        let tablet = Client(serverURL: server.url)
        tablet.token = Self.token
        try tablet.edit(["new Tea"])  // something to push: the run pulls again after it
        let restore = try tablet.run(["sync"])
        #expect(restore.status == 75, "work is left: \(restore)")
        #expect((restore.stdout + restore.stderr).contains("Curry: skipped: not pulled yet, its image did not download: "),
                "\(restore)")
        #expect((restore.stdout + restore.stderr).components(separatedBy: "Curry: skipped").count == 2,
                "said once in the run, not again by the pull after the push: \(restore)")
        #expect(Set(try tablet.rows().map(\.title)) == ["Tea", "Soup", "Bread"], "the recipes after it arrived")
        let status = try tablet.run(["status"])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains(
            "still to come from the server: \"Curry\" (uuid \(curry.uuid.prefix(8))): its image did not download: "), "\(status)")
        #expect(status.stdout.contains("the recipes after it are pulled, and the next sync tries it again\n"), "\(status)")

        try bytes.write(to: file)
        let again = try tablet.run(["sync"])
        #expect(again.status == 0, "\(again)")
        #expect(Set(try tablet.rows().map(\.title)) == ["Tea", "Soup", "Curry", "Bread"])
        #expect(try tablet.rows().first { $0.title == "Curry" }?.imageSHA256 == sha)
        let after = try tablet.run(["status"])
        #expect(!after.stdout.contains("still to come"), "\(after)")
    }
}
