import Foundation
import RecipesTestSupport
import Testing
import Transport
@testable import RecipeModels
@testable import RecipeStore
@testable import RecipeSync

/// The big sites' pages in Tests/Fixtures/pages.
private func page(_ name: String) throws -> String {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pages/\(name)")
    return try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "IMAGE_BASE", with: "https://img.example.com")
}

/// The `Recipe` node of a page as written, made a document another app could have stored: its `image` left out (the
/// server takes only its own image URLs), `identifier` and `version` put in.
private func document(fromPage name: String, uuid: UUID, version: Int) throws -> String {
    let html = try page(name)
    let script = try #require(RecipeJSONLD.scripts(inHTML: html).first)
    let node = try #require(RecipeJSONLD.recipeTexts(script)?.first)
    let members = try #require(JSONScanner.members(of: node)).filter { $0.key != "image" }
    return "{" + (members.map { "\"\($0.key)\": \($0.value)" } + [
        "\"identifier\": \"\(uuid.lowercasedString)\"", "\"version\": \(version)",
    ]).joined(separator: ",\n ") + "}"
}

@Suite("The whole recipe through sync: what another app wrote comes back from a pull and push unchanged")
struct WholeRecipeSyncTests {
    /// Stores `text` on `server` as another app would (`If-None-Match: *`, or `If-Match` of `base`).
    func put(_ text: String, uuid: UUID, base: Int64?, on server: SyncServer) async throws {
        let response = try await server.send(server.api.putRecipe(uuid: uuid, document: Data(text.utf8), base: base))
        #expect((200..<300).contains(response.status), "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// The members of the document the server stores for `uuid`, each value as written.
    func stored(_ uuid: UUID, on server: SyncServer) async throws -> [String: String] {
        let response = try await server.get("/v1/recipes/\(uuid.lowercasedString)")
        let members = try #require(JSONScanner.members(of: response.body))
        return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    @Test("real pages stored by another app, pulled, edited in one field and pushed: every other property byte for byte",
          arguments: [("yoast-graph-recipe.html", "cookTime"), ("magazine-recipe.html", "name"),
                      ("yoast-graph-recipe.html", "recipeIngredient"), ("magazine-recipe.html", "recipeCategory")])
    func pagesComeBackUnchanged(_ name: String, _ edited: String) async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let uuid = UUID()
            let original = try document(fromPage: name, uuid: uuid, version: 1)
            try await put(original, uuid: uuid, base: nil, on: server)
            _ = try await home.sync(server, direction: .pullOnly)
            let id = try #require(try home.store.recipe(uuid: uuid)?.id)
            switch edited {
            case "cookTime": try home.store.apply(.detail(.cookTime, "PT45M"), to: id)
            case "name": try home.store.apply(.title("Lemon cake"), to: id)
            case "recipeIngredient": try home.store.apply(.addIngredient("coriander, to serve"), to: id)
            default: try home.store.apply(.detailList(.recipeCategory, ["Cake"]), to: id)
            }
            let summary = try await home.sync(server)
            #expect(summary.done == 1)
            let before = try #require(JSONScanner.members(of: original))
            let after = try await stored(uuid, on: server)
            for (key, value) in before where key != edited && key != "version" {
                #expect(after[key] == value, "\(key) of \(name) after editing \(edited)")
            }
            #expect(after["version"] == "2")
            // What recipes adds to every document it writes, and nothing else.
            #expect(Set(after.keys).subtracting(before.map(\.key)).subtracting([edited]).isSubset(of: ["dateModified", "@context"]))
        }
    }

    @Test("cookTime changed here and recipeCategory elsewhere merge; the kept properties stay; the same property on both is a conflict by name")
    func twoDevicesMerge() async throws {
        try await withSyncServer { server in
            let here = try ClientHome()
            let there = try ClientHome()
            let uuid = UUID()
            try await put("""
                {"@context":"https://schema.org","@type":"Recipe","identifier":"\(uuid.lowercasedString)","version":1,"name":"Soup",
                 "cookTime":"PT1H","recipeCategory":"Soup","nutrition":{"@type":"NutritionInformation","calories":"200 kcal"},
                 "aggregateRating":{"@type":"AggregateRating","ratingValue":4.50}}
                """, uuid: uuid, base: nil, on: server)
            _ = try await here.sync(server, direction: .pullOnly)
            _ = try await there.sync(server, direction: .pullOnly)
            let hereID = try #require(try here.store.recipe(uuid: uuid)?.id)
            let thereID = try #require(try there.store.recipe(uuid: uuid)?.id)
            try here.store.apply(.detail(.cookTime, "PT1H30M"), to: hereID)
            #expect(try await here.sync(server).done == 1)
            try there.store.apply(.detailList(.recipeCategory, ["Soup", "Starter"]), to: thereID)
            let merged = try await there.sync(server, direction: .both)
            #expect(merged.done == 1 && merged.conflicts == 0)
            let document = try await stored(uuid, on: server)
            #expect(document["cookTime"] == #""PT1H30M""#)
            #expect(document["recipeCategory"] == #"["Soup","Starter"]"#)
            #expect(document["aggregateRating"] == #"{"@type":"AggregateRating","ratingValue":4.50}"#)
            #expect(document["nutrition"] == #"{"@type":"NutritionInformation","calories":"200 kcal"}"#)

            // Both change calories, and the kept rating: two conflicts, named by their keys.
            _ = try await here.sync(server, direction: .pullOnly)
            try here.store.apply(.nutrition(key: "calories", value: "210 kcal"), to: hereID)
            var local = try here.store.recipe(id: hereID)
            local.received.other["aggregateRating"] = #"{"ratingValue":5}"#
            _ = try here.store.update(hereID, to: RecipeContent(local), received: local.received)
            try there.store.apply(.nutrition(key: "calories", value: "250 kcal"), to: thereID)
            let current = try await stored(uuid, on: server)
            var theirs = current
            theirs["aggregateRating"] = #"{"ratingValue":3}"#
            theirs["nutrition"] = #"{"@type":"NutritionInformation","calories":"250 kcal"}"#
            theirs["version"] = "4"
            let text = "{" + theirs.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
            try await put(text, uuid: uuid, base: 3, on: server)
            let conflicted = try await here.sync(server, direction: .both)
            #expect(conflicted.conflicts == 1)
            let conflict = try #require(try here.store.recipe(id: hereID).sync.conflict)
            #expect(conflict.summary == "changed here and on the server: nutrition calories, property aggregateRating")
            guard case .fields(let fields) = conflict else { throw StoreError(.changeRefused) }
            #expect(fields.first?.mine == .text("210 kcal") && fields.first?.theirs == .text("250 kcal"))
            // Resolved per field like the others.
            _ = try here.store.resolve(id: hereID, side: .theirs, only: ["nutrition calories"])
            _ = try here.store.resolve(id: hereID, side: .mine, only: ["property aggregateRating"])
            #expect(try await here.sync(server).done == 1)
            let resolved = try await stored(uuid, on: server)
            #expect(resolved["aggregateRating"] == #"{"ratingValue":5}"#)
            #expect(resolved["nutrition"] == #"{"@type":"NutritionInformation","calories":"250 kcal"}"#)
        }
    }

    @Test("a recipe made here goes out in the contract's shape with its details, and a fresh home restores all of it")
    func restoresDetails() async throws {
        try await withSyncServer { server in
            let here = try ClientHome()
            let id = try here.store.create(title: "Bread").id
            try here.store.apply(.addStep("Knead."), to: id)
            try here.store.apply(.addStep("Bake."), to: id)
            try here.store.apply(.stepSection(from: 2, to: 2, name: "Oven"), to: id)
            try here.store.apply(.detail(.prepTime, "PT20M"), to: id)
            try here.store.apply(.detailList(.suitableForDiet, ["https://schema.org/VeganDiet"]), to: id)
            try here.store.apply(.nutrition(key: "calories", value: "180 kcal"), to: id)
            #expect(try await here.sync(server).done == 1)
            let uuid = try here.store.recipe(id: id).uuid
            let document = try await stored(uuid, on: server)
            #expect(document["recipeInstructions"] == #"[{"@type":"HowToStep","text":"Knead."},{"@type":"HowToSection","itemListElement":[{"@type":"HowToStep","text":"Bake."}],"name":"Oven"}]"#)
            #expect(document["prepTime"] == #""PT20M""#)
            let fresh = try ClientHome()
            _ = try await fresh.sync(server, direction: .pullOnly)
            let restored = try #require(try fresh.store.recipe(uuid: uuid))
            let original = try here.store.recipe(id: id)
            #expect(RecipeContent(restored) == RecipeContent(original))
            #expect(restored.sync.state == .synced)
        }
    }
}
