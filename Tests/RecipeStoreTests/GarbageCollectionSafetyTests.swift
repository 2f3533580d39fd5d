import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeStore

@Suite("Collection deletes only files recipes wrote, and never through a symbolic link")
struct GarbageCollectionSafetyTests {
    static let copyName = String(repeating: "0123456789abcdef", count: 4) + ".png"
    static let uuid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"

    @Test("the names recipes writes, and only those, are its own", arguments: [
        (copyName, true, false, false),
        (String(repeating: "ab", count: 32) + ".jpg", true, false, false),
        (String(repeating: "ab", count: 32) + ".webp", true, false, false),
        (String(repeating: "AB", count: 32) + ".png", false, false, false),  // recipes writes lower case
        (String(repeating: "ab", count: 31) + ".png", false, false, false),  // 62 digits
        (copyName + ".bak", false, false, false),
        (String(repeating: "ab", count: 32) + ".tiff", false, false, false),
        ("holiday.jpg", false, false, false),
        ("\(uuid)-3.json", false, true, false),
        ("\(uuid)-.json", false, false, false),
        ("\(uuid)-3.json.txt", false, false, false),
        ("\(uuid.uppercased())-3.json", false, false, false),
        ("draft.json", false, false, false),
        (".tmp-\(uuid)", false, false, true),
        (".tmp-4242:99@\(uuid)", false, false, true),
        (".tmp-writer-gone:1@\(uuid)", false, false, true),
        (".tmp-fresh", false, false, false),
        (".tmp-4242:99@0f1e", false, false, false),
        (".tmp-@\(uuid)", false, false, false),
        (".tmp-a@b@\(uuid)", false, false, false),
        (".lock", false, false, false),
    ])
    func ownNames(name: String, isCopy: Bool, isOutboxFile: Bool, isTemporary: Bool) {
        #expect(OwnFileNames.isImageCopy(name) == isCopy)
        #expect(OwnFileNames.isOutboxFile(name) == isOutboxFile)
        #expect(OwnFileNames.isTemporaryFile(name) == isTemporary)
    }

    /// A folder outside the home with a user's files, one of them named like a media copy.
    func userFolder(_ dir: TemporaryDirectory) throws -> (path: String, names: Set<String>) {
        let path = dir.url.appendingPathComponent("Pictures").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let names: Set<String> = ["holiday.jpg", Self.copyName, ".tmp-\(Self.uuid)", "\(Self.uuid)-1.json"]
        for name in names { _ = FileManager.default.createFile(atPath: path + "/" + name, contents: Data(name.utf8)) }
        return (path, names)
    }

    func names(_ path: String) -> Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []) }

    func isSymlinkRefusal(_ error: any Error, _ path: String) -> Bool {
        guard case .symlinkedFolder(let refused, _) = (error as? StoreError)?.kind else { return false }
        return refused == path
    }

    @Test("a media/, outbox/ or images/ that is a link is refused when a store opens to write, before anything is created")
    func linkedFolderRefusedAtOpen() throws {
        for folder in ["media", "outbox", "images"] {
            let dir = TemporaryDirectory()
            do { _ = try RecipeStore(home: dir.home).create(title: "Soup") }
            let user = try userFolder(dir)
            let linkPath = dir.home.url.appendingPathComponent(folder).path
            try? FileManager.default.removeItem(atPath: linkPath)
            try FileManager.default.createSymbolicLink(atPath: linkPath, withDestinationPath: user.path)
            #expect { try RecipeStore(home: dir.home) } throws: { isSymlinkRefusal($0, linkPath) }
            #expect(names(user.path) == user.names)
            // Reading is not refused: status says what is wrong.
            #expect(try RecipeStore(home: dir.home, access: .readOnly).recipes().count == 1)
            let notes = dir.home.folderNotes()
            #expect(notes.map(\.finding) == [.symbolicLink(destination: user.path)])
            #expect(notes.first?.text.hasPrefix("\(folder)/ is a symbolic link to \(user.path):") == true)
            let message = StoreError(.symlinkedFolder(path: linkPath, destination: user.path)).errorDescription ?? ""
            #expect(message.contains("remove the link (`rm \(linkPath)` leaves \(user.path) as it is)"))
        }
    }

    @Test("a media/ or outbox/ replaced by a link while a store is open: collection, copying and removal refuse it, and the linked files survive")
    func linkedFolderRefusedLater() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        try store.apply(.setImage(try store.media.stage(from: dir.file("a.png", pngBytes()))), to: id)
        let user = try userFolder(dir)
        for folder in [dir.home.mediaURL.path, dir.home.outboxURL.path] {
            try FileManager.default.moveItem(atPath: folder, toPath: folder + ".real")
            try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: user.path)
        }
        #expect { try store.collectGarbage() } throws: { isSymlinkRefusal($0, dir.home.mediaURL.path) }
        #expect { try store.collectOutboxGarbage(now: Date(), isOwnerAlive: { _ in false }) } throws: {
            isSymlinkRefusal($0, dir.home.outboxURL.path)
        }
        #expect { _ = try store.media.stage(from: dir.file("b.png", pngBytes(seed: 3))) } throws: {
            isSymlinkRefusal($0, dir.home.mediaURL.path)
        }
        #expect { try store.delete(id) } throws: { isSymlinkRefusal($0, dir.home.mediaURL.path) }
        #expect(try store.recipe(id: id).title == "Soup", "the refused deletion changed nothing")
        #expect(names(user.path) == user.names)
        #expect(try RecipeStore.hasNothingToSync(home: dir.home) == false, "a linked folder is left to the sync to refuse")
    }

    @Test("collection takes recipes' own leftovers and leaves every other file, and a link named like a copy, alone")
    func foreignFilesStay() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        let kept = try #require(try store.apply(.setImage(try store.media.stage(from: dir.file("a.png", pngBytes()))), to: id)
            .image?.localFileName)
        let media = dir.home.mediaURL.path, outbox = dir.home.outboxURL.path
        let target = dir.file("target.png", pngBytes(seed: 7))
        let linkedCopy = String(repeating: "9", count: 64) + ".png"
        try FileManager.default.createSymbolicLink(atPath: media + "/" + linkedCopy, withDestinationPath: target)
        try FileManager.default.createDirectory(atPath: media + "/" + String(repeating: "8", count: 64) + ".png",
                                                withIntermediateDirectories: false)
        let foreignMedia = ["holiday.jpg", Self.copyName + ".bak", ".tmp-fresh", "notes"]
        let foreignOutbox = ["notes.txt", "draft.json", ".tmp-4242:99@0f1e"]
        for name in foreignMedia { _ = FileManager.default.createFile(atPath: media + "/" + name, contents: Data([1])) }
        for name in foreignOutbox { _ = FileManager.default.createFile(atPath: outbox + "/" + name, contents: Data([1])) }
        let dead = ".tmp-2147483646:1@\(Self.uuid)"
        let ownMedia = [Self.copyName, dead], ownOutbox = ["\(Self.uuid)-2.json", dead]
        for name in ownMedia { _ = FileManager.default.createFile(atPath: media + "/" + name, contents: Data([2])) }
        for name in ownOutbox { _ = FileManager.default.createFile(atPath: outbox + "/" + name, contents: Data([2])) }

        #expect(Set(try store.collectGarbage()) == Set(ownMedia))
        #expect(Set(try store.collectOutboxGarbage(now: Date(), isOwnerAlive: LeaseOwner.isAlive)) == Set(ownOutbox))
        #expect(names(media) == Set(foreignMedia + [kept, linkedCopy, String(repeating: "8", count: 64) + ".png", ".lock"]))
        #expect(names(outbox) == Set(foreignOutbox))
        #expect(fileBytes(target) == Data(pngBytes(seed: 7)), "the link's target is untouched")
        // Said once, per folder; the idle check is not kept busy by them.
        let notes = dir.home.folderNotes()
        #expect(notes.map(\.folder.lastPathComponent) == ["media", "outbox"])
        #expect(notes.last?.text == "outbox/ holds 3 files recipes did not write (left alone): .tmp-4242:99@0f1e, draft.json, notes.txt")
        try store.apply(.clearImage, to: id)
        try store.apply(.title("Synced"), to: id)
        #expect(FileManager.default.fileExists(atPath: media + "/" + kept), "an earlier revision names it: undo brings it back")
        #expect(!(try store.collectGarbage()).contains(kept))
    }

    @Test("the idle check ignores files recipes did not write, and not its own")
    func idleCheckIgnoresForeignFiles() throws {
        let dir = TemporaryDirectory()
        do { _ = try RecipeStore(home: dir.home) }
        #expect(try RecipeStore.hasNothingToSync(home: dir.home))
        _ = FileManager.default.createFile(atPath: dir.home.outboxURL.path + "/notes.txt", contents: Data([1]))
        _ = FileManager.default.createFile(atPath: dir.home.mediaURL.path + "/holiday.jpg", contents: Data([1]))
        #expect(try RecipeStore.hasNothingToSync(home: dir.home))
        _ = FileManager.default.createFile(atPath: dir.home.outboxURL.path + "/\(Self.uuid)-1.json", contents: Data([1]))
        #expect(try RecipeStore.hasNothingToSync(home: dir.home) == false)
    }
}
