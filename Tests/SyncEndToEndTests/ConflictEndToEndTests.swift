import Foundation
import GRDB
import Testing

/// Conflicts between two homes of one server (docs/sync-engine.md, "Two-way sync and conflicts"), through the built `recipes` binary and a real
/// `recipes-server`: the sync that meets a conflict exits 1, `recipes resolve` settles it, and after the next syncs
/// the server and both homes agree.
@Suite("conflicts end to end: two homes, one server, resolve, sync", .serialized)
struct ConflictEndToEndTests {
    /// The fields of recipe `id` in `client`, as `show --json` prints them.
    static func fields(_ client: Client, _ id: Int64 = 1) throws -> [String: String] {
        let run = try client.run(["show", String(id), "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return ["title": object["title"] as? String ?? "?", "recipeYield": object["recipeYield"] as? String ?? "?"]
    }

    @Test("the same field edited in two homes: the second sync exits 1 in conflict; --theirs, then --mine, and both homes and the server agree")
    func sameFieldEditedTwice() throws {
        let a = Client()
        let server = try a.startServer()
        defer { server.stop() }
        let b = Client(serverURL: server.url)
        try a.edit(["new Soup", "yield 1 \"2 bowls\""])
        #expect(try a.run(["sync"]).status == 0)
        #expect(try b.run(["sync"]).status == 0)
        #expect(try Self.fields(b) == ["title": "Soup", "recipeYield": "2 bowls"], "the second home restored the recipe")

        // Round 1: both change the title; the second home takes the server's.
        try a.edit(["title 1 \"Tomato soup\""])
        #expect(try a.run(["sync"]).status == 0)
        try b.edit(["title 1 \"Onion soup\""])
        let meet = try b.run(["sync", "--json"])
        #expect(meet.status == 1, "a conflict needs a person: \(meet)")
        #expect(jsonEvents(meet.stdout).contains { $0["event"] as? String == "conflict" }, "\(meet.stdout)")
        let entry = try #require(try b.status(of: 1))
        #expect(entry["state"] as? String == "conflict")
        #expect((entry["conflicts"] as? [[String: String]]) == [["field": "title", "mine": "Onion soup", "theirs": "Tomato soup"]])
        let conflicts = try b.run(["conflicts"])
        #expect(conflicts.stdout.contains("title: mine \"Onion soup\", theirs \"Tomato soup\""), "\(conflicts)")
        let theirs = try b.run(["resolve", "1", "--theirs", "--field", "title"])
        #expect(theirs.status == 0 && theirs.stdout.contains("resolved title (theirs); synced"), "\(theirs)")
        let putsBefore = server.requests().filter { $0.method == "PUT" }.count
        #expect(try b.run(["sync"]).status == 0)
        #expect(server.requests().filter { $0.method == "PUT" }.count == putsBefore, "the server's copy was not sent back")
        #expect(try Self.fields(b) == ["title": "Tomato soup", "recipeYield": "2 bowls"])

        // Round 2: both change the yield; the second home keeps its own, which reaches the server and the first home.
        try a.edit(["yield 1 \"4 bowls\""])
        #expect(try a.run(["sync"]).status == 0)
        try b.edit(["yield 1 \"6 bowls\""])
        #expect(try b.run(["sync"]).status == 1)
        let mine = try b.run(["resolve", "1", "--mine"])
        #expect(mine.status == 0 && mine.stdout.contains("resolved yield (mine); pending"), "\(mine)")
        #expect(try b.run(["sync"]).status == 0)
        #expect(try a.run(["sync"]).status == 0)
        let agreed = ["title": "Tomato soup", "recipeYield": "6 bowls"]
        #expect(try Self.fields(a) == agreed && Self.fields(b) == agreed)
        let stored = try #require(try server.storedRecipes().first)
        #expect(stored.name == "Tomato soup" && stored.version == 4, "\(stored)")
        for client in [a, b] {
            let row = try #require(try client.rows().first)
            #expect(row.state == "synced" && row.serverVersion == 4, "\(row)")
        }
    }

    @Test("deleted in one home, changed in the other: --mine re-creates it on the server as tombstone + 1, and it comes back to the first home")
    func deletedOnServerRecreated() throws {
        let a = Client()
        let server = try a.startServer()
        defer { server.stop() }
        let b = Client(serverURL: server.url)
        try a.edit(["new Bread"])
        #expect(try a.run(["sync"]).status == 0)
        #expect(try b.run(["sync"]).status == 0)
        try a.edit(["delete 1"])
        #expect(try a.run(["sync"]).status == 0)  // the tombstone is version 2
        try b.edit(["title 1 \"Rye bread\""])
        #expect(try b.run(["sync"]).status == 1)
        #expect(try b.status(of: 1)?["blocked"] as? String
            == "deleted on the server, changed here — `recipes resolve 1 --mine` or `--theirs`")
        let mine = try b.run(["resolve", "1", "--mine"])
        #expect(mine.status == 0 && mine.stdout.contains("kept here (mine)"), "\(mine)")
        let push = try b.run(["sync"])
        #expect(push.status == 0, "\(push)")
        let recreated = try #require(server.requests().last { $0.method == "PUT" && $0.isRecipe })
        #expect(recreated.status == 201, "the re-creation: \(recreated)")
        let stored = try #require(try server.storedRecipes().first)
        #expect(stored.name == "Rye bread" && stored.version == 3, "\(stored)")
        #expect(try a.run(["sync"]).status == 0)
        #expect(try a.rows().map(\.title) == ["Rye bread"])
        #expect(try b.rows().first?.state == "synced")
    }

    @Test("deleted here, changed on the server: --mine sends the DELETE of the server's version, and the other home lets it go")
    func deletedHereDeletionKept() throws {
        let a = Client()
        let server = try a.startServer()
        defer { server.stop() }
        let b = Client(serverURL: server.url)
        try a.edit(["new Pie"])
        #expect(try a.run(["sync"]).status == 0)
        #expect(try b.run(["sync"]).status == 0)
        try a.edit(["title 1 \"Apple pie\""])
        #expect(try a.run(["sync"]).status == 0)  // version 2
        try b.edit(["delete 1"])
        #expect(try b.run(["sync"]).status == 1, "deleted here while the server has a newer version: a conflict")
        #expect(try b.status(of: 1)?["state"] as? String == "conflict")
        let mine = try b.run(["resolve", "1", "--mine"])
        #expect(mine.status == 0 && mine.stdout.contains("deletion kept (mine)"), "\(mine)")
        #expect(try b.run(["sync"]).status == 0)
        let delete = try #require(server.requests().last { $0.method == "DELETE" })
        #expect(delete.status == 204, "\(delete)")
        #expect(try server.storedRecipes().first?.version == 3)
        #expect(try b.rows().isEmpty)
        #expect(try a.run(["sync"]).status == 0)
        #expect(try a.rows().isEmpty, "the first home removed the recipe the server deleted")
    }
}
