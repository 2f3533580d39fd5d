import Foundation
import GRDB
import RecipesTestSupport
import Testing

/// A laptop and a kitchen tablet on one server, each a real `recipes` home: a recipe is named the same way on both
/// (its uuid), and what is said about the server is the server's version, the number both devices share.
@Suite("two devices name a recipe the same way: uuid prefixes, the server's version")
struct TwoDeviceNamingTests {
    /// The laptop with "Tomato soup" (1) and "Pancakes" (2) on the server, and a tablet that made "Tea" (1) first and
    /// then pulled the others (the pancakes are 3 there).
    static func laptopAndTablet() throws -> (laptop: Client, tablet: Client, server: ServerProcess, pancakes: String) {
        let laptop = Client()
        let server = try laptop.startServer()
        try laptop.edit(["new Tomato soup", "new Pancakes"])
        #expect(try laptop.run(["sync", "--jobs", "1"]).status == 0, "one at a time: the soup is first in the feed")
        let tablet = Client(serverURL: server.url)
        try tablet.edit(["new Tea"])
        #expect(try tablet.run(["sync"]).status == 0)
        let pancakes = try #require(try laptop.rows().first { $0.title == "Pancakes" }?.uuid)
        #expect(try tablet.rows().first { $0.uuid == pancakes }?.id == 3, "the tablet numbers the pancakes 3")
        return (laptop, tablet, server, pancakes)
    }

    @Test("the start of a uuid names the same recipe on both devices, in the REPL and in a shell command")
    func uuidPrefixOnBothDevices() throws {
        let (laptop, tablet, server, pancakes) = try Self.laptopAndTablet()
        defer { server.stop() }
        let prefix = String(pancakes.prefix(8))
        try tablet.edit(["title \(prefix) Fluffy pancakes"])
        let onTablet = try tablet.run(["show", prefix, "--details"])
        #expect(onTablet.status == 0 && onTablet.stdout.contains("title:        Fluffy pancakes\n"), "\(onTablet)")
        #expect(onTablet.stdout.contains("id:           3\n") && onTablet.stdout.contains("uuid:         \(pancakes)\n"))
        let whole = try laptop.run(["status", pancakes.uppercased()])
        #expect(whole.status == 0 && whole.stdout.contains("  Pancakes"), "a whole uuid, in any case: \(whole)")
        let onLaptop = try laptop.run(["show", String(pancakes.prefix(5)), "--details"])
        #expect(onLaptop.stdout.contains("id:           2\n"), "\(onLaptop)")
    }

    @Test("a sync says the server's version, and status's SERVER column is the same on both devices")
    func serverVersionOnBothDevices() throws {
        let (laptop, tablet, server, pancakes) = try Self.laptopAndTablet()
        defer { server.stop() }
        try tablet.edit(["title 3 Fluffy pancakes", "yield 3 \"8 pancakes\"", "keywords 3 breakfast"])
        let push = try tablet.run(["sync"])
        #expect(push.stdout.contains("#3 Fluffy pancakes: done (version 2 on the server)\n"), "\(push)")
        let pull = try laptop.run(["sync"])
        #expect(pull.stdout.contains("#2 Fluffy pancakes: pulled (version 2 from the server)\n"), "\(pull)")
        for (device, id) in [(tablet, "3"), (laptop, "2")] {
            let status = try device.run(["status", String(pancakes.prefix(8))])
            let lines = status.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("ID  UUID      STATE   REV  SERVER  TITLE") == true, "\(status)")
            let columns = try #require(lines.dropFirst().first?.split(separator: " ", omittingEmptySubsequences: true))
            #expect(columns.count >= 5 && columns[0] == id && columns[1] == pancakes.prefix(8) && columns[2] == "synced"
                && columns[4] == "2", "\(status.stdout)")
        }
    }

    @Test("a prefix two recipes share is refused with both listed; one no recipe has says so; nothing changes")
    func ambiguousAndUnknownPrefixes() throws {
        let home = Client()
        let uuids = ["3f2a91c0-0000-4000-8000-000000000001", "3f2b0000-0000-4000-8000-000000000002"]
        try home.edit(["new Pancakes", "new Porridge"])
        let database = try DatabaseQueue(path: home.databasePath)
        try database.write { db in
            for (index, uuid) in uuids.enumerated() {
                try db.execute(sql: "UPDATE recipes SET uuid = ? WHERE id = ?", arguments: [uuid, index + 1])
            }
        }
        let ambiguous = try home.run(["show", "3f2"])
        #expect(ambiguous.status == 1 && ambiguous.stderr.contains("no recipe here is titled \"3f2\""),
                "three characters are no uuid prefix, so a title start, of none here: \(ambiguous)")
        let shared = try home.run(["edit"], input: "title 3f2a Crêpes\ntitle 3F2 Nope\ntitle 3f2b-00 Oats\n")
        #expect(shared.status == 1)
        #expect(shared.stderr.contains("line 2: no recipe here is titled \"3F2\""), "\(shared.stderr)")
        #expect(try home.rows().map(\.title) == ["Crêpes", "Oats"])
        let both = try home.run(["status", "3f2a9", "3f2b"])
        #expect(both.status == 0 && both.stdout.split(separator: "\n").count == 4, "the header, two rows, the destination: \(both)")
        let none = try home.run(["show", "3f2a9c"])
        #expect(none.status == 1 && none.stderr == "recipes: no recipe here has a uuid or a title starting with \"3f2a9c\"; `list` shows the titles and ids, `status` the uuids\n", "\(none)")
        try database.write { db in
            try db.execute(sql: "UPDATE recipes SET uuid = ? WHERE id = 2", arguments: ["3f2a91c0-0000-4000-8000-000000000003"])
        }
        let clash = try home.run(["edit"], input: "title 3f2a91c0 Anything\n")
        #expect(clash.status == 1)
        #expect(clash.stderr == "error: line 1: 3f2a91c0 is the start of the uuid of several recipes: 1 Crêpes (3f2a91c0-0000-4000-8000-000000000001), 2 Oats (3f2a91c0-0000-4000-8000-000000000003); give more of the uuid, or the id\n", "\(clash.stderr)")
        #expect(try home.rows().map(\.title) == ["Crêpes", "Oats"], "nothing changed")
    }

    @Test("a recipe deleted on the server is named on the other device by its title and the id it had there")
    func removedByTitle() throws {
        let (laptop, tablet, server, pancakes) = try Self.laptopAndTablet()
        defer { server.stop() }
        try laptop.edit(["delete 2"])
        #expect(try laptop.run(["sync"]).status == 0)
        let sync = try tablet.run(["sync"])
        #expect(sync.status == 0, "\(sync)")
        #expect(sync.stdout.contains("#3 Pancakes: removed here: deleted on the server\n"), "\(sync.stdout)")
        #expect(!sync.stdout.contains("#0"))
        let json = try laptop.run(["sync", "--json"])
        #expect(json.status == 0)
        #expect(try tablet.rows().allSatisfy { $0.uuid != pancakes })
    }
}
