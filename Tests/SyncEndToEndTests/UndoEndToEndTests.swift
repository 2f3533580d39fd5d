import Foundation
import Testing

/// `recipes undo` through a sync (docs/editing.md, "History and undo"), with the built `recipes` binary, two homes and
/// a real `recipes-server`: an undo is an edit like any other, it reaches the other home; a deleted recipe comes back,
/// whether its deletion reached the server or not.
@Suite("undo end to end: two homes, one server", .serialized)
struct UndoEndToEndTests {
    @Test("an edit undone here is a new revision that syncs: the second home pulls the content from before the edit")
    func undoneEditReachesTheSecondHome() throws {
        let (a, server, b) = try TwoWaySyncTests.twoHomes(["new Soup", "yield 1 \"2 bowls\""])
        defer { server.stop() }
        try a.edit(["title 1 \"Tomato soup\""])
        #expect(try a.run(["sync"]).status == 0)
        #expect(try b.run(["sync"]).status == 0)
        #expect(try b.rows().map(\.title) == ["Tomato soup"])

        let undo = try a.run(["undo", "1", "--verbose"])
        #expect(undo.status == 0 && undo.stdout.hasPrefix("undo: recipe 1 \"Soup\" is as revision 2 was"), "\(undo)")
        let history = try a.run(["history", "1"])
        #expect(history.stdout.contains("undo (back to revision 2)"), "\(history)")
        #expect(history.stdout.contains("edited here (title)"), "\(history)")
        #expect(try a.run(["sync"]).status == 0)
        #expect(try b.run(["sync"]).status == 0)
        #expect(try b.rows().map(\.title) == ["Soup"], "the undo reached the second home")
        #expect(try b.rows().first?.state == "synced")
        #expect(try server.storedRecipes().first?.name == "Soup")
        let pulled = try b.run(["history", "1", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(pulled.stdout.utf8)) as? [[String: Any]])
        #expect(entries.first?["origin"] as? String == "pull" && entries.first?["changes"] as? [String] == ["title"],
                "the second home's history: \(pulled.stdout)")
    }

    @Test("deleted, synced, undone by its old title, synced: the server re-creates it above the tombstone and the second home has it back")
    func deletionUndoneAfterItsSync() throws {
        let (a, server, b) = try TwoWaySyncTests.twoHomes(["new Bread", "ingredient add 1 500 g flour"])
        defer { server.stop() }
        try a.edit(["delete 1"])
        #expect(try a.run(["sync"]).status == 0)  // the tombstone is version 2
        #expect(try b.run(["sync"]).status == 0)
        #expect(try a.rows().isEmpty && b.rows().isEmpty, "deleted in both homes")
        let deleted = try a.run(["history", "--deleted"])
        #expect(deleted.stdout.contains("Bread") && deleted.stdout.contains("deleted here"), "\(deleted)")

        let undo = try a.run(["undo", "bread", "--verbose"])
        #expect(undo.status == 0 && undo.stdout.hasPrefix("undo: recipe 1 \"Bread\" is back"), "\(undo)")
        let push = try a.run(["sync"])
        #expect(push.status == 0, "\(push)")
        let recreated = try #require(server.requests().last { $0.method == "PUT" && $0.isRecipe })
        #expect(recreated.status == 201, "the re-creation above the tombstone: \(recreated)")
        let stored = try #require(try server.storedRecipes().first)
        #expect(stored.name == "Bread" && stored.version == 3, "\(stored)")
        #expect(try b.run(["sync"]).status == 0)
        #expect(try b.rows().map(\.title) == ["Bread"], "the second home has it back")
        let show = try b.run(["show", "bread", "--json"])  // a new id there: its old row went with the deletion
        #expect(show.stdout.contains("500 g flour"), "\(show)")
        let back = try #require(try a.rows().first)
        #expect(back.id == 1 && back.state == "synced", "the same id here, synced: \(back)")
    }

    @Test("deleted and undone before any sync: no DELETE ever reaches the server, and the second home keeps the recipe")
    func deletionUndoneBeforeItsSync() throws {
        let (a, server, b) = try TwoWaySyncTests.twoHomes(["new Pie"])
        defer { server.stop() }
        try a.edit(["delete 1", "undo 1"])
        #expect(try a.rows().first?.state == "pending", "an undo is an edit")
        #expect(try a.run(["sync"]).status == 0)
        #expect(!server.requests().contains { $0.method == "DELETE" }, "\(server.requests())")
        #expect(try b.run(["sync"]).status == 0)
        #expect(try b.rows().map(\.title) == ["Pie"])
        #expect(try server.storedRecipes().map(\.name) == ["Pie"])
    }

    @Test("deleted on the other device: this home's history says so, and undo here brings it back to both")
    func deletionElsewhereUndoneHere() throws {
        let (a, server, b) = try TwoWaySyncTests.twoHomes(["new Stew"])
        defer { server.stop() }
        try b.edit(["delete 1"])
        #expect(try b.run(["sync"]).status == 0)  // the tombstone is version 2
        #expect(try a.run(["sync"]).status == 0)
        #expect(try a.rows().isEmpty)
        let deleted = try a.run(["history", "--deleted"])
        #expect(deleted.stdout.contains("Stew") && deleted.stdout.contains("deleted on the server"), "\(deleted)")
        #expect(try a.run(["undo", "stew"]).status == 0)
        #expect(try a.run(["sync"]).status == 0)
        #expect(try server.storedRecipes().first.map { "\($0.name) \($0.version)" } == "Stew 3")
        #expect(try b.run(["sync"]).status == 0)
        #expect(try b.rows().map(\.title) == ["Stew"])
    }

    @Test("a recipe the server never had, deleted and undone: it comes back under its id and is uploaded as new")
    func neverSyncedDeletionUndone() throws {
        let a = Client()
        let server = try a.startServer()
        defer { server.stop() }
        try a.edit(["new Cake", "new Tart", "delete 1"])
        #expect(try a.rows().map(\.id) == [2], "removed at once: the server never had it")
        let undo = try a.run(["undo"])
        #expect(undo.status == 0 && undo.stdout.isEmpty, "the last change here undone, silently on a pipe: \(undo)")
        #expect(try a.rows().map(\.id) == [1, 2])
        #expect(try a.run(["sync"]).status == 0)
        let created = server.requests().filter { $0.method == "PUT" && $0.isRecipe }
        #expect(created.count == 2 && created.allSatisfy { $0.status == 201 }, "\(created)")
    }
}
