import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("The image path status, show and export give is where this home keeps the bytes: media/, else images/, else none")
struct ImagePathTests {
    @Test("a media copy, then a pulled recipe's file in images/, then none once that file is gone")
    func imagePaths() throws {
        let dir = TemporaryDirectory()
        let home = dir.home
        let bytes = pngBytes(size: 256, seed: 9)
        let store = try RecipeStore(home: home)
        let attached = try store.create(title: "Attached").id
        try store.apply(.setImage(try store.media.stage(from: dir.file("a.png", pngBytes(size: 128, seed: 4)))), to: attached)
        // A recipe pulled from the server with its image downloaded into images/ (no media copy).
        let probe = try store.media.stage(from: dir.file("b.png", bytes))
        store.media.discard(probe)
        let sha = probe.sha256
        try FileManager.default.createDirectory(at: home.imagesURL, withIntermediateDirectories: true)
        let downloaded = home.imagesURL.appendingPathComponent("\(sha).png").path
        #expect(FileManager.default.createFile(atPath: downloaded, contents: Data(bytes)))
        let fields = RecipeFields(title: "Pulled", image: RecipeImage(serverURL: "http://127.0.0.1:9/v1/images/\(sha)"))
        let change = PulledChange(uuid: UUID(), copy: .live(version: 1, fields: fields), seq: 1)
        let pulled = try #require(try store.applyPage([change], through: 1, owner: "1:1", releasing: [change.uuid]).first?.id)
        let mediaCopy = try #require(try store.recipe(id: attached).image?.localFileName).map(store.media.path(of:))

        func images() throws -> [Int64: Any] {
            let run = try runRecipes(["status", "--json", "--home", dir.homePath])
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
            return Dictionary(entries.map { (($0["id"] as? Int64) ?? 0, $0["image"] as Any) }) { first, _ in first }  // no crash on a repeated id
        }
        let paths = try images()
        #expect(paths[attached] as? String == mediaCopy)
        #expect(paths[pulled] as? String == downloaded)
        let show = try runRecipes(["show", String(pulled), "--details", "--home", dir.homePath])
        #expect(show.stdout.contains("\n              \(downloaded)\n"), "\(show.stdout)")
        let showJSON = try runRecipes(["show", String(pulled), "--json", "--home", dir.homePath])
        #expect(showJSON.stdout.contains("\"path\":\"\(downloaded)\""), "\(showJSON.stdout)")
        let out = dir.url.appendingPathComponent("export").path
        let export = try runRecipes(["export", String(pulled), "--out", out, "--home", dir.homePath])
        #expect(export.status == 0, "\(export)")
        #expect(fileBytes(out + "/\(pulled)-pulled.png") == Data(bytes), "the export copied the image from images/")

        try FileManager.default.removeItem(atPath: downloaded)
        #expect(try images()[pulled] is NSNull)
    }
}
