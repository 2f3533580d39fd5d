import Foundation
import GRDB
import RecipeModels
import RecipesTestSupport
import Testing
@testable import RecipeStore

@Suite("words of digits: a leading 0 starts a uuid, never an id; an id that is also a uuid start is refused")
struct DigitReferenceTests {
    @Test("a word of digits reads as an id only without a leading 0; with one it is a uuid start from 4 digits")
    func reading() {
        #expect(RecipeReference("2") == .id(2))
        #expect(RecipeReference("1234") == .idOrUUID(1234, prefix: "1234"))
        #expect(RecipeReference("00000002") == .uuid(prefix: "00000002"))
        #expect(RecipeReference("0000") == .uuid(prefix: "0000"))
        #expect(RecipeReference("0123") == .uuid(prefix: "0123"))
        #expect(RecipeReference("0") == nil && RecipeReference("02") == nil && RecipeReference("012") == nil)
    }

    /// A home with "Pie" (1, uuid 00000002-…), "Tea" (2, uuid 1234abcd-…) and "Bread" (1234).
    static func home() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        _ = try store.create(title: "Pie")
        _ = try store.create(title: "Tea")
        try store.pool.write { db in
            try db.execute(sql: "UPDATE recipes SET uuid = '00000002-0000-4000-8000-000000000001' WHERE id = 1")
            try db.execute(sql: "UPDATE recipes SET uuid = '1234abcd-0000-4000-8000-000000000002' WHERE id = 2")
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = 1233 WHERE name = 'recipes'")
        }
        #expect(try store.create(title: "Bread").id == 1234)
        return dir
    }

    @Test("`show 00000002`, as status shows uuid 00000002-…, is that recipe, not recipe 2; so are 0000 and delete")
    func leadingZero() throws {
        let dir = try Self.home()
        let home = ["--home", dir.homePath]
        let show = try runRecipes(["show", "00000002"] + home)
        #expect(show.status == 0 && show.stdout.hasPrefix("Pie\n"), "\(show)")
        let short = try runRecipes(["show", "0000"] + home)
        #expect(short.status == 0 && short.stdout.hasPrefix("Pie\n"), "four digits start a uuid: \(short)")
        let delete = try runRecipes(["delete", "00000002"] + home)
        #expect(delete.status == 0, "\(delete)")
        let store = try RecipeStore(home: dir.home, access: .readOnly)
        #expect(try store.recipe(id: 2).sync.state != .deleting, "recipe 2 was not the one deleted")
        #expect((try? store.recipe(id: 1)) == nil, "Pie, which the server never had, is gone")
    }

    @Test("a word that is a recipe's id and another's uuid start is refused, naming both; changes nothing")
    func idAndUUIDStart() throws {
        let dir = try Self.home()
        let home = ["--home", dir.homePath]
        let refused = try runRecipes(["title", "1234", "Rye bread"] + home)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr == "recipes: 1234 is both the id of recipe 1234 Bread (\(try Self.uuid(of: 1234, in: dir))) "
            + "and the start of the uuid of 2 Tea (1234abcd-0000-4000-8000-000000000002); name the one you mean by its "
            + "uuid (its first 8 characters, as `status` shows them)\n", "\(refused.stderr)")
        let store = try RecipeStore(home: dir.home, access: .readOnly)
        #expect(try store.recipe(id: 1234).title == "Bread" && store.recipe(id: 2).title == "Tea")
        let tea = try runRecipes(["show", "1234a"] + home)
        #expect(tea.status == 0 && tea.stdout.hasPrefix("Tea\n"), "\(tea)")
        let bread = try runRecipes(["show", "1233"] + home)
        #expect(bread.status == 1 && bread.stderr.contains("no recipe with id 1233"), "neither an id nor a uuid start: \(bread)")
    }

    static func uuid(of id: Int64, in dir: TemporaryDirectory) throws -> String {
        try RecipeStore(home: dir.home, access: .readOnly).recipe(id: id).uuid.uuidString.lowercased()
    }
}
