import Foundation
import RecipeModels
import RecipeStore
import RecipesTestSupport
import SyncWatch
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Every committed edit wakes the watcher through the home's FIFO, and costs nothing when none listens")
struct EditSignalTests {
    @Test("each kind of edit (create, change, delete, edit card, import) makes the listener readable; draining empties it")
    func everyEditWakes() async throws {
        let folder = TemporaryDirectory()
        let store = try RecipeStore(home: folder.home)
        let listener = try EditSignalListener(home: folder.home)
        #expect(!isReadable(listener.descriptor))
        let edits: [(String, () throws -> Void)] = [
            ("create", { _ = try store.create(title: "Soup") }),
            ("change", { try store.apply(.title("Stew"), to: 1) }),
            ("edit card", { _ = try store.update(1, to: RecipeContent(title: "Broth", ingredients: ["water"])) }),
            ("import", { _ = try store.create([.init(content: RecipeContent(title: "Bread"))]) }),
            ("delete", { try store.delete(2) }),
        ]
        for (name, edit) in edits {
            try edit()
            #expect(await becomesReadable(listener.descriptor, within: 60), "\(name) woke nothing")
            #expect(listener.drain(), "\(name): nothing to read")
            #expect(!isReadable(listener.descriptor), "\(name): drain left bytes behind")
        }
    }

    @Test("an edit that changes nothing (the card saved unchanged) and a refused edit send nothing")
    func noChangeNoSignal() throws {
        let folder = TemporaryDirectory()
        let store = try RecipeStore(home: folder.home)
        _ = try store.create(title: "Soup")
        let listener = try EditSignalListener(home: folder.home)
        let current = try store.recipe(id: 1)
        let unchanged = try store.update(1, to: RecipeContent(current))
        guard case .unchanged = unchanged else {
            Issue.record("the same content was saved as a change: \(unchanged)")
            return
        }
        #expect(throws: StoreError.self) { try store.apply(.title("x"), to: 99) }
        #expect(!isReadable(listener.descriptor))
    }

    @Test("no watcher ever ran: an edit creates nothing in the home")
    func noWatcherNoFile() throws {
        let folder = TemporaryDirectory()
        let store = try RecipeStore(home: folder.home)
        _ = try store.create(title: "Soup")
        #expect(!FileManager.default.fileExists(atPath: folder.home.editSignalURL.path))
    }

    @Test("a FIFO left by a stopped watcher: edits go on, and their bytes are not waiting for the next watcher")
    func staleFIFO() throws {
        let folder = TemporaryDirectory()
        let store = try RecipeStore(home: folder.home)
        do { _ = try EditSignalListener(home: folder.home) }  // a watcher that came and went
        for index in 1...100 { _ = try store.create(title: "Recipe \(index)") }
        let next = try EditSignalListener(home: folder.home)
        #expect(!next.drain(), "bytes from before the watcher started were kept")
    }

    @Test("something else at the FIFO's path is never opened by an edit, and the watcher refuses it")
    func notAFIFO() throws {
        let folder = TemporaryDirectory()
        let store = try RecipeStore(home: folder.home)
        let path = folder.home.editSignalURL.path
        let before = Data("a file of someone's\n".utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: before))
        _ = try store.create(title: "Soup")
        #expect(FileManager.default.contents(atPath: path) == before)
        let error = #expect(throws: WatchError.self) { try EditSignalListener(home: folder.home) }
        #expect(error?.errorDescription?.contains("\(path) is not a FIFO") == true)
    }
}
