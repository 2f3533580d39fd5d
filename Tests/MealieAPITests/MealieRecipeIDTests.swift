import Foundation
import MealieAPI
import Testing

@Suite("MealieRecipeID: the id a recipe gets in Mealie, which takes only version-4 ids")
struct MealieRecipeIDTests {
    @Test("A version-4 UUID is its own Mealie id", arguments: [
        "6c287c71-7993-479e-8872-f4af1626f916", "00000000-0000-4000-8000-000000000000", "FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF",
    ])
    func version4(text: String) throws {
        let uuid = try #require(UUID(uuidString: text))
        #expect(MealieRecipeID.isVersion4(uuid))
        #expect(MealieRecipeID.of(uuid) == uuid)
    }

    @Test("Any other UUID gets a version-4 id derived from it, the same every time", arguments: [
        "2b1c4a2e-cb7c-11ef-9a3d-0242ac120002", // version 1
        "01890a5d-ac96-774b-bcce-b302099a8057", // version 7
        "00000000-0000-0000-0000-000000000001", // no version
        "6c287c71-7993-479e-c872-f4af1626f916", // version 4 digit, but not the RFC 4122 variant
        "00000000-0000-0000-0000-000000000000",
    ])
    func derived(text: String) throws {
        let uuid = try #require(UUID(uuidString: text))
        #expect(!MealieRecipeID.isVersion4(uuid))
        let id = MealieRecipeID.of(uuid)
        #expect(MealieRecipeID.isVersion4(id))
        #expect(id != uuid)
        #expect(MealieRecipeID.of(uuid) == id)
        #expect(id.uuidString.lowercased().dropFirst(14).first == "4")
    }

    @Test("Ids that differ only in the bits the version takes still get different Mealie ids")
    func noFolding() throws {
        let first = try #require(UUID(uuidString: "01890a5d-ac96-774b-bcce-b302099a8057"))
        let second = try #require(UUID(uuidString: "01890a5d-ac96-174b-8cce-b302099a8057"))
        #expect(MealieRecipeID.of(first) != MealieRecipeID.of(second))
        let many = (0..<2000).map { MealieRecipeID.of(UUID(uuidString: String(format: "00000000-0000-7000-8000-%012x", $0))!) }
        #expect(Set(many).count == many.count)
    }
}
