import Foundation
@testable import MealieAPI
import MealieTestSupport
import RecipeModels
import Testing

/// Titles Mealie has already, against the real Mealie (in `MealieLiveTests`' serialized suite).
extension MealieLiveTests {
    @Test("A second recipe of a title Mealie has: created under Mealie's \"Title (1)\" with the title beside it and no sample ingredient or step; a rename to a taken title gets the next free name")
    func titleTaken() async throws {
        let session = try await MealieSession.shared()
        let requests = Self.requests(session)
        let title = "Collide \(UUID().uuidString.prefix(8))"
        let first = RecipeFields(title: title, ingredients: ["2 eggs"], steps: ["Whisk."])
        _ = try await Self.create(first, uuid: UUID(), with: requests)
        let bare = RecipeFields(title: title, description: "No ingredient yet.")
        let uuid = UUID()
        guard case .created(let second) = try await requests.create(bare, uuid: uuid, mayExist: false) else {
            Issue.record("not created"); return
        }
        #expect(second.stamp.name == "\(title) (1)")
        #expect(second.fields == bare) // the title as written, no "1 Cup Flour", no sample step
        #expect(second.document["recipeIngredient"]?.elements.isEmpty == true)
        #expect(second.document["recipeInstructions"]?.elements.isEmpty == true)
        // Written again, nothing is sent: the name Mealie chose stays.
        #expect(try await requests.write(bare, id: uuid, base: second.stamp.updatedAt) == .written(second))

        // A third recipe renamed to a title that slugifies like both: the first free name after them.
        let third = RecipeFields(title: "Elsewhere \(UUID().uuidString.prefix(8))", ingredients: ["salt"])
        let thirdID = UUID()
        let made = try await Self.create(third, uuid: thirdID, with: requests)
        var renamed = third
        renamed.title = title.uppercased() + "!"
        guard case .written(let written) = try await requests.write(renamed, id: thirdID, base: made.stamp.updatedAt) else {
            Issue.record("not written"); return
        }
        #expect(written.stamp.name == "\(renamed.title) (2)")
        #expect(written.fields == renamed)
        #expect(try await requests.read(id: thirdID)?.fields == renamed)
        // (Mealie's LIKE is blind to case: the renamed one is listed too.)
        #expect(Set(try await session.recipes(named: title)) == [title, "\(title) (1)", "\(renamed.title) (2)"])
    }
}
