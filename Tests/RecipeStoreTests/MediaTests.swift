import Crypto
import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("Attached images: checked by their bytes, copied into media/, the user's file never touched")
struct MediaTests {
    func sha256(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

    @Test("a PNG is copied under its SHA-256 and attached; the user's file is unchanged")
    func attachesCopy() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        let bytes = pngBytes(size: 200_000)
        let source = dir.file("photo.png", bytes)
        let before = try FileManager.default.attributesOfItem(atPath: source)
        let staged = try store.media.stage(from: source)
        let recipe = try store.apply(.setImage(staged), to: id)
        let image = try #require(recipe.image)
        #expect(image.sha256 == sha256(bytes))
        #expect(image.format == .png && image.byteCount == 200_000)
        #expect(image.localFileName == "\(sha256(bytes)).png")
        #expect(fileBytes(store.media.path(of: try #require(image.localFileName))) == Data(bytes))
        #expect(fileBytes(source) == Data(bytes))
        let after = try FileManager.default.attributesOfItem(atPath: source)
        #expect(before[.modificationDate] as? Date == after[.modificationDate] as? Date)
        #expect(recipe.sync.revision == 2)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.media.directory.path)
            .filter { $0.hasPrefix(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test("missing files, folders, non-images, empty and too-large files are refused and leave nothing behind")
    func refusesBadFiles() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        func kind(_ body: () throws -> Void) -> StoreError.Kind? {
            do { try body(); return nil } catch let error as StoreError { return error.kind } catch { return nil }
        }
        let missing = dir.url.appendingPathComponent("nope.png").path
        #expect(kind { _ = try store.media.stage(from: missing) } == .imageNotFound(path: missing))
        #expect(kind { _ = try store.media.stage(from: dir.url.path) } == .imageNotRegularFile(path: dir.url.path, type: .folder))
        let text = dir.file("notes.png", Array("just text".utf8))
        #expect(kind { _ = try store.media.stage(from: text) } == .imageNotRecognised(path: text))
        let empty = dir.file("empty.jpg", [])
        #expect(kind { _ = try store.media.stage(from: empty) } == .imageNotRecognised(path: empty))
        let big = dir.file("big.png", pngBytes(size: 2048))
        #expect(kind { _ = try store.media.stage(from: big, maxBytes: 1024) } == .imageTooLarge(path: big, bytes: 2048, limit: 1024))
        let names = try FileManager.default.contentsOfDirectory(atPath: store.media.directory.path).filter { $0 != ".lock" }
        #expect(names.isEmpty)
        #expect(fileBytes(text) == Data("just text".utf8))
    }

    @Test("an old copy stays while a recipe or a revision an undo can bring back names it, and goes once none does")
    func oldCopiesGo() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let a = try store.create(title: "A").id
        let b = try store.create(title: "B").id
        let first = dir.file("1.png", pngBytes(seed: 1))
        let second = dir.file("2.png", pngBytes(seed: 2))
        let shared = try #require(try store.apply(.setImage(try store.media.stage(from: first)), to: a).image?.localFileName)
        _ = try store.apply(.setImage(try store.media.stage(from: first)), to: b)
        let sharedPath = store.media.path(of: shared)
        try store.apply(.setImage(try store.media.stage(from: second)), to: a)
        #expect(FileManager.default.fileExists(atPath: sharedPath), "B still uses the first image")
        try store.apply(.clearImage, to: b)
        #expect(FileManager.default.fileExists(atPath: sharedPath), "B's earlier revisions name it: `undo` brings it back")
        let aImage = try #require(try store.recipe(id: a).image?.localFileName)
        try store.delete(a)
        try store.collectGarbage()
        #expect(FileManager.default.fileExists(atPath: store.media.path(of: aImage)), "the deleted A's revisions name it")
        // The history forgets them (as its bounds do, 50 revisions a recipe, 200 deleted recipes): the copies go.
        try DatabaseQueue(path: dir.home.databaseURL.path).write { try $0.execute(sql: "DELETE FROM recipe_history") }
        try store.collectGarbage()
        #expect(!FileManager.default.fileExists(atPath: sharedPath), "nobody uses the first image any more")
        #expect(!FileManager.default.fileExists(atPath: store.media.path(of: aImage)))
    }

    @Test("garbage collection removes unreferenced copies and stale temporaries, keeps the rest")
    func collectsGarbage() throws {
        let dir = TemporaryDirectory()
        var clock = Date()
        let store = try RecipeStore(home: dir.home, now: { [clock] in clock })
        let id = try store.create(title: "A").id
        let kept = try #require(try store.apply(.setImage(try store.media.stage(from: dir.file("a.png", pngBytes()))), to: id)
            .image?.localFileName)
        let media = store.media.directory.path
        // Names recipes writes: a copy no recipe refers to, and an older version's temporary name (no writer).
        let orphan = sha256(pngBytes(seed: 9)) + ".png", fresh = ".tmp-" + UUID().uuidString.lowercased()
        _ = FileManager.default.createFile(atPath: media + "/" + orphan, contents: Data(pngBytes(seed: 9)))
        _ = FileManager.default.createFile(atPath: media + "/" + fresh, contents: Data([1]))
        #expect(try store.collectGarbage() == [orphan])
        clock += TemporaryFiles.grace + 60
        let later = try RecipeStore(home: dir.home, now: { [clock] in clock })
        #expect(try later.collectGarbage() == [fresh])
        #expect(FileManager.default.fileExists(atPath: store.media.path(of: kept)))
    }

    @Test("a copy being staged names this process: collection keeps it while the process lives, and takes a dead writer's at once")
    func temporaryCopiesNameTheirWriter() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let staged = try store.media.stage(from: dir.file("a.png", pngBytes()))
        let stagedName = URL(fileURLWithPath: staged.temporaryPath).lastPathComponent
        #expect(stagedName.hasPrefix(".tmp-\(LeaseOwner.current)@"))
        // A process killed while copying (pid 2147483646 does not exist) left its temporary copy.
        let dead = ".tmp-2147483646:1@" + UUID().uuidString.lowercased()
        #expect(FileManager.default.createFile(atPath: store.media.path(of: dead), contents: Data([1])))
        #expect(try store.collectGarbage() == [dead])
        #expect(FileManager.default.fileExists(atPath: staged.temporaryPath), "this process is still copying it")
        // Seen from a process that takes this one for dead, the same copy goes.
        #expect(try store.collectGarbage(isOwnerAlive: { $0 != LeaseOwner.current }) == [stagedName])
    }
}
