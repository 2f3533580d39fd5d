import Foundation
import MealieAPI
import Testing
import Transport

@Suite("MealieServer: the requests a sync sends to Mealie")
struct MealieServerTests {
    static let server = MealieServer(baseURL: "https://mealie.example.org/")!
    static let id = UUID(uuidString: "6C287C71-7993-479E-8872-F4AF1626F916")!

    @Test("A base URL is http(s) with a host, optionally a port and a path; anything else is refused", arguments: [
        ("https://mealie.example.org", "https://mealie.example.org"),
        ("http://127.0.0.1:9000/", "http://127.0.0.1:9000"),
        (" https://home.example.org/mealie// ", "https://home.example.org/mealie"),
    ])
    func baseURL(text: String, base: String) {
        #expect(MealieServer(baseURL: text)?.baseURL == base)
    }

    @Test("Not a base URL", arguments: [
        "", "mealie.example.org", "ftp://mealie.example.org", "https://user:pw@mealie.example.org",
        "https://mealie.example.org/?x=1", "https://mealie.example.org/#top", "https://mealie.example.org:0", "https://:9000",
    ])
    func notBaseURL(text: String) {
        #expect(MealieServer(baseURL: text) == nil)
    }

    @Test("Recipes are addressed by their lower-case id; the image upload by its percent-encoded slug")
    func recipeRequests() throws {
        let server = Self.server
        let recipe = server.recipe(id: Self.id)
        #expect(recipe.method == .get)
        #expect(recipe.url == "https://mealie.example.org/api/recipes/6c287c71-7993-479e-8872-f4af1626f916")
        let update = server.updateRecipe(id: Self.id, document: Data("{}".utf8))
        #expect(update.method == .put && update.url == recipe.url)
        #expect(update.body == .data(Data("{}".utf8), contentType: "application/json"))
        #expect(server.deleteRecipe(id: Self.id).method == .delete)
        let form = try #require(MultipartForm(boundary: "b", parts: []))
        let upload = server.uploadImage(slug: "tomato-soup/../x y", form)
        #expect(upload.method == .put)
        #expect(upload.url == "https://mealie.example.org/api/recipes/tomato-soup%2F..%2Fx%20y/image")
        #expect(upload.body == .data(form.body, contentType: "multipart/form-data; boundary=b"))
        let create = server.importRecipe(form)
        #expect(create.method == .post && create.url == "https://mealie.example.org/api/recipes/create/zip")
        #expect(server.image(id: Self.id).url
            == "https://mealie.example.org/api/media/recipes/6c287c71-7993-479e-8872-f4af1626f916/images/original.webp")
        #expect(server.group().url == "https://mealie.example.org/api/groups/self")
        #expect(server.about().url == "https://mealie.example.org/api/app/about")
        for request in [recipe, update, upload, create] { #expect(request.answerDeadline == MealieServer.answerDeadline) }
    }

    @Test("The changes page: ordered by updated_at then id, the keyset filter encoded, the page size clamped to 1..1000")
    func changes() throws {
        let cursor = ChangeCursor(updatedAt: try #require(MealieTimestamp(parsing: "2026-11-27T10:15:56.212913Z")), id: Self.id)
        #expect(Self.server.changes(after: cursor, pageSize: 100).url == "https://mealie.example.org/api/recipes?"
            + "orderBy=updated_at%3Aasc%2Cid%3Aasc&page=1&perPage=100&queryFilter="
            + "%28updatedAt%20%3E%20%222026-11-27T10%3A15%3A56.212913Z%22%29%20OR%20%28updatedAt%20%3D%20%222026-11-27T10%3A15%3A56.212913Z%22"
            + "%20AND%20id%20%3E%20%226c287c71-7993-479e-8872-f4af1626f916%22%29")
        #expect(Self.server.changes(after: nil, pageSize: 0).url
            == "https://mealie.example.org/api/recipes?orderBy=updated_at%3Aasc%2Cid%3Aasc&page=1&perPage=1")
        #expect(Self.server.changes(after: nil, pageSize: 50_000).url.contains("perPage=1000"))
    }

    @Test("The id listing is keyed on the id; the count is one recipe's page; organizers come whole")
    func listings() {
        #expect(Self.server.recipeIDs(after: Self.id, pageSize: 1000).url == "https://mealie.example.org/api/recipes?"
            + "orderBy=id%3Aasc&page=1&perPage=1000&queryFilter=id%20%3E%20%226c287c71-7993-479e-8872-f4af1626f916%22")
        #expect(Self.server.recipeIDs(after: nil, pageSize: 2).url
            == "https://mealie.example.org/api/recipes?orderBy=id%3Aasc&page=1&perPage=2")
        #expect(Self.server.recipeCount().url == "https://mealie.example.org/api/recipes?orderBy=id%3Aasc&page=1&perPage=1")
        #expect(Self.server.organizers(.categories).url
            == "https://mealie.example.org/api/organizers/categories?orderBy=name%3Aasc&page=1&perPage=-1")
        let create = Self.server.createOrganizer(.tags, name: "Soup \"hot\"")
        #expect(create.method == .post && create.url == "https://mealie.example.org/api/organizers/tags")
        guard case .data(let body, "application/json") = create.body else { Issue.record("\(create.body)"); return }
        #expect((try? JSONSerialization.jsonObject(with: body)) as? [String: String] == ["name": "Soup \"hot\""])
    }
}
