import Foundation
import MealieAPI
import Testing
import Transport

@Suite("MealieAnswer: the answers of a real Mealie read, and every other answer refused with a clear error")
struct MealieAnswerTests {
    static let capturedID = UUID(uuidString: "6c287c71-7993-479e-8872-f4af1626f916")!

    @Test("A captured recipe gives its id, slug, name, updatedAt to the microsecond and no image key")
    func recipe() throws {
        let stamp = try #require(try MealieAnswer.recipe(Fixture.response("recipe"), id: Self.capturedID).get())
        #expect(stamp.id == Self.capturedID)
        #expect(stamp.slug == "captured-soup")
        #expect(stamp.name == "Captured soup")
        #expect(stamp.updatedAt.description == "2026-11-27T10:29:41.185543Z")
        #expect(stamp.imageKey == nil)
    }

    @Test("Mealie's 404 for a recipe it does not have is 'none'; a 404 for a route that does not exist is an error")
    func notFound() throws {
        #expect(try MealieAnswer.recipe(Fixture.response("recipe-404"), id: UUID()).get() == nil)
        let error = try #require(MealieAnswer.recipe(Fixture.response("route-404"), id: UUID()).failure)
        #expect(error.problem == .unexpectedStatus(expected: "200", mealieSays: "Not Found"))
        #expect(error.description.contains("server.url"))
    }

    @Test("The answer of a full update is the stamp of the recipe as stored, with its new updatedAt and image key")
    func update() throws {
        let stamp = try MealieAnswer.update(Fixture.response("update-200"), id: Self.capturedID).get()
        #expect(stamp.updatedAt > (try #require(MealieTimestamp(parsing: "2026-11-27T10:29:41.185543Z"))))
        #expect(stamp.imageKey == "167")
    }

    @Test("An answer about another recipe than the one asked for is refused")
    func otherRecipe() throws {
        let error = try #require(MealieAnswer.update(Fixture.response("update-200"), id: UUID()).failure)
        guard case .inconsistent = error.problem else { Issue.record("\(error)"); return }
    }

    @Test("Mealie's own refusals of an update are errors quoting Mealie's message")
    func refusals() throws {
        let partial = try #require(MealieAnswer.update(Fixture.response("update-partial-400"), id: Self.capturedID).failure)
        #expect(partial.problem == .unexpectedStatus(expected: "200", mealieSays: "Recipe already exists"))
        let invalid = try #require(MealieAnswer.update(Fixture.response("validation-422"), id: Self.capturedID).failure)
        #expect(invalid.problem == .unexpectedStatus(expected: "200", mealieSays: "body.tools.0.id: Field required"))
    }

    @Test("Deletion: 200 with the recipe is 'deleted now', Mealie's 404 is 'already gone'")
    func deletion() throws {
        #expect(try MealieAnswer.deletion(Fixture.response("delete-200"), id: Self.capturedID).get() == true)
        #expect(try MealieAnswer.deletion(Fixture.response("delete-404"), id: Self.capturedID).get() == false)
        #expect(MealieAnswer.deletion(try Fixture.response("route-404"), id: Self.capturedID).failure != nil)
    }

    @Test("The zip import's 201 is the slug; its 500 is not a slug")
    func createdSlug() throws {
        #expect(try MealieAnswer.createdSlug(Fixture.response("create-zip-201")).get() == "captured-soup")
        let error = try #require(MealieAnswer.createdSlug(Fixture.response("create-zip-500")).failure)
        #expect(error.problem == .unexpectedStatus(expected: "201", mealieSays: "Internal Server Error"))
    }

    @Test("The image upload's answer is the new cache key; by id Mealie answers 404 'Not found.'")
    func imageKey() throws {
        #expect(try MealieAnswer.imageKey(Fixture.response("image-200")).get() == "167")
        let error = try #require(MealieAnswer.imageKey(Fixture.response("image-by-id-404")).failure)
        #expect(error.problem == .unexpectedStatus(expected: "200", mealieSays: "Not found."))
    }

    @Test("Identity: the version from /api/app/about, the group id from /api/groups/self; a refused token is an error")
    func identity() throws {
        #expect(try MealieAnswer.about(Fixture.response("about")).get() == "develop")
        let group = try MealieAnswer.group(Fixture.response("group")).get()
        #expect(group.id == UUID(uuidString: "bfd6c73d-74d6-4b75-82a7-c33a10457324"))
        #expect(group.name == "Home")
        let refused = try #require(MealieAnswer.group(Fixture.response("group-401")).failure)
        #expect(refused.problem == .unexpectedStatus(expected: "200", mealieSays: "Could not validate credentials"))
        // The recipe-server's health answer is JSON too, but not a Mealie's.
        let other = try #require(MealieAnswer.about(Fixture.json(200, ["status": "ok", "server": "x"])).failure)
        #expect(other.problem == .missingField(path: "production"))
    }

    @Test("A page of the changes: the total, and each item's stamp in order, with list items' +00:00 timestamps")
    func changesPage() throws {
        let page = try MealieAnswer.recipePage(Fixture.response("changes-page"), pageSize: 2).get()
        #expect(page.total == 4)
        try #require(page.items.count == 2)
        #expect(page.items[0].id == Self.capturedID)
        #expect(page.items[0].imageKey == "167")
        #expect(page.items[0].updatedAt < page.items[1].updatedAt)
        #expect(try MealieAnswer.recipePage(Fixture.response("changes-empty"), pageSize: 100).get() == RecipePage(total: 0, items: []))
        #expect(try MealieAnswer.recipePage(Fixture.response("count-page"), pageSize: 1).get().total == 4)
    }

    @Test("A page with more items than asked for, or than its own total, is refused")
    func pageCounts() throws {
        let tooMany = try #require(MealieAnswer.recipePage(Fixture.response("changes-page"), pageSize: 1).failure)
        #expect(tooMany.problem == .inconsistent("2 recipes on a page of at most 1"))
        var object = try Fixture.object("changes-page")
        object["total"] = 1
        let overTotal = try #require(MealieAnswer.recipePage(Fixture.json(200, object), pageSize: 2).failure)
        #expect(overTotal.problem == .inconsistent("2 recipes on a page of a list of 1"))
    }

    @Test("Bad JSON, HTML and wrong types are refused with the field named, never a crash", arguments: [
        ("not json at all", MealieAnswerError.Problem.notJSON(contentType: "application/json")),
        ("", .notJSON(contentType: "application/json")),
        ("<html><body>Log in to the Wi-Fi</body></html>", .htmlPage),
        ("  \n<!doctype html>", .htmlPage),
        (#"{"page":1,"per_page":2,"total":4,"total_pages":2}"#, .missingField(path: "items")),
        (#"{"page":1,"per_page":2,"total_pages":2,"items":[]}"#, .missingField(path: "total")),
        (#"{"page":1,"per_page":2,"total":"4","total_pages":2,"items":[]}"#, .wrongType(path: "total", expected: "a number")),
        (#"{"page":1,"per_page":2,"total":4.5,"total_pages":2,"items":[]}"#, .badValue(path: "total", value: "4.5")),
        (#"{"page":1,"per_page":2,"total":1e300,"total_pages":2,"items":[]}"#, .badValue(path: "total", value: "1e+300")),
        (#"{"page":1,"per_page":2,"total":123456789012345678901234567890,"total_pages":2,"items":[]}"#,
         .badValue(path: "total", value: "1.2345678901234568e+29")),
        (#"{"page":1,"per_page":2,"total":-3,"total_pages":2,"items":[]}"#, .badValue(path: "total", value: "-3")),
        (#"{"page":1,"per_page":2,"total":99999999999,"total_pages":2,"items":[]}"#, .badValue(path: "total", value: "99999999999")),
        (#"{"total":4,"items":[]} trailing"#, .notJSON(contentType: "application/json")),
        (String(repeating: "[", count: 100_000), .notJSON(contentType: "application/json")),
        (#"{"page":1,"per_page":2,"total":4,"total_pages":2,"items":{}}"#, .wrongType(path: "items", expected: "a list")),
        (#"{"page":1,"per_page":2,"total":4,"total_pages":2,"items":[{"id":"x","slug":"s","updatedAt":"2026-11-27T10:15:56Z"}]}"#,
         .badValue(path: "items[0].id", value: "x")),
        (#"{"page":1,"per_page":2,"total":4,"total_pages":2,"items":[{"id":"6c287c71-7993-479e-8872-f4af1626f916","slug":"s"}]}"#,
         .missingField(path: "items[0].updatedAt")),
        (#"{"page":1,"per_page":2,"total":4,"total_pages":2,"items":[{"id":"6c287c71-7993-479e-8872-f4af1626f916","slug":"s","updatedAt":null}]}"#,
         .wrongType(path: "items[0].updatedAt", expected: "a string")),
        (#"{"page":1,"per_page":2,"total":4,"total_pages":2,"items":[{"id":"6c287c71-7993-479e-8872-f4af1626f916","slug":"s","updatedAt":"2026-11-27T10:15:56"}]}"#,
         .badValue(path: "items[0].updatedAt", value: "2026-11-27T10:15:56")),
        (#"{"page":1,"per_page":2,"total":4,"total_pages":2,"items":[{"id":"6c287c71-7993-479e-8872-f4af1626f916","slug":"","updatedAt":"2026-11-27T10:15:56Z"}]}"#,
         .badValue(path: "items[0].slug", value: "")),
        (#"{"page":1,"per_page":2,"total":4,"total_pages":2,"items":[{"id":"6c287c71-7993-479e-8872-f4af1626f916","slug":"s","updatedAt":"2026-11-27T10:15:56Z","image":true}]}"#,
         .wrongType(path: "items[0].image", expected: "a string")),
    ])
    func hostilePages(body: String, problem: MealieAnswerError.Problem) throws {
        let error = try #require(MealieAnswer.recipePage(Fixture.raw(200, body), pageSize: 10).failure)
        #expect(error.problem == problem)
        #expect(error.status == 200)
        #expect(error.description.hasPrefix("Mealie answered the recipe list with HTTP 200 and "))
    }

    @Test("An image key written as a number is read as its text")
    func numericImageKey() throws {
        var object = try Fixture.object("recipe")
        object["image"] = 42
        #expect(try MealieAnswer.recipe(Fixture.json(200, object), id: Self.capturedID).get()?.imageKey == "42")
    }

    @Test("Organizers: the captured tags and the tag and tool Mealie made; duplicates are refusals quoting Mealie")
    func organizers() throws {
        let tags = try MealieAnswer.organizers(Fixture.response("tags"), kind: .tags).get()
        #expect(tags.map(\.slug) == ["soup"])
        let tag = try MealieAnswer.createdOrganizer(Fixture.response("tag-created-201"), kind: .tags).get()
        #expect(tag.name == "Captured tag" && tag.slug == "captured-tag")
        let tool = try MealieAnswer.createdOrganizer(Fixture.response("tool-created-201"), kind: .tools).get()
        #expect(tool.slug == "captured-pot" && tool.onHand == false)
        #expect(tag.onHand == nil)
        let duplicateTag = try #require(MealieAnswer.createdOrganizer(Fixture.response("tag-duplicate-500"), kind: .tags).failure)
        #expect(duplicateTag.status == 500)
        let duplicateTool = try #require(MealieAnswer.createdOrganizer(Fixture.response("tool-duplicate-400"), kind: .tools).failure)
        guard case .unexpectedStatus(_, let says?) = duplicateTool.problem else { Issue.record("\(duplicateTool)"); return }
        #expect(says.hasPrefix("An unexpected error occurred. ((sqlite3.IntegrityError) UNIQUE constraint failed"))
        #expect(says.count <= 301)
    }

    @Test("Mealie's error bodies in all their shapes give one printable line")
    func errorBodies() {
        #expect(MealieErrorBody.message(in: Data(#"{"detail":{"message":"No Entry Found","error":true,"exception":null}}"#.utf8)) == "No Entry Found")
        #expect(MealieErrorBody.message(in: Data(#"{"detail":{"message":"Unknown Error","error":true,"exception":"TypeError"}}"#.utf8))
            == "Unknown Error (TypeError)")
        #expect(MealieErrorBody.message(in: Data(#"{"detail":"invalid query string: unknown date or datetime format 'x'"}"#.utf8))
            == "invalid query string: unknown date or datetime format 'x'")
        #expect(MealieErrorBody.message(in: Data(#"{"detail":[{"loc":["body","name"],"msg":"Field required"},{"loc":["query","perPage"],"msg":"bad"}]}"#.utf8))
            == "body.name: Field required; query.perPage: bad")
        #expect(MealieErrorBody.message(in: Data("Internal Server Error".utf8)) == "Internal Server Error")
        #expect(MealieErrorBody.message(in: Data(#"{"detail":"a\u001b[2Jb\nc"}"#.utf8)) == "a [2Jb c")
        #expect(MealieErrorBody.message(in: Data("<html>portal</html>".utf8)) == nil)
        #expect(MealieErrorBody.message(in: Data()) == nil)
        #expect(MealieErrorBody.message(in: Data(String(repeating: "x", count: 5000).utf8)) == nil)
    }
}

extension Result {
    /// The error, or nil on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
