import Foundation
import HTTPTestSupport
@testable import MealieAPI
import MealieTestSupport
import RecipeModels
import Testing
import Transport

/// The operations of `MealieDestinationRequests` against the real Mealie: in `MealieLiveTests`' serialized suite, so
/// that their imports never collide with another test's in Mealie's one temporary file.
extension MealieLiveTests {
    static func requests(_ session: MealieSession) -> MealieDestinationRequests {
        MealieDestinationRequests(server: session.server, client: session.client, token: session.instance.token)
    }

    /// A whole recipe with every field `recipes` edits, a fresh tag and a fresh tool (created by the write after the
    /// import), and properties Mealie has no field for.
    static func wholeFields(_ name: String) -> RecipeFields {
        let marker = String(name.suffix(8)).lowercased()
        return RecipeFields(
            title: name, description: "Red and warm.", recipeYield: "4 servings", keywords: "Soup,Fresh \(marker)",
            ingredients: ["1 kg tomatoes", "1 onion", "salt"],
            steps: [Step(text: "Chop.", section: "Prep"), Step(text: "Simmer 20 min.", section: "Cook"), Step(text: "Blend.", section: "Cook")],
            details: RecipeDetails(
                prepTime: "PT15M", cookTime: "PT30M", totalTime: "PT45M", recipeCategory: ["Dinner"], recipeCuisine: ["Italian"],
                author: "Ada", url: "https://example.org/soup", nutrition: ["calories": "250 kcal", "servingSize": "1 bowl"],
                tool: ["Pot \(marker)"], suitableForDiet: ["https://schema.org/VeganDiet"]),
            received: ReceivedProperties(other: ["video": #"{"@type":"VideoObject","name":"How"}"#]))
    }

    /// Creates `fields` under `uuid` as the sync would: again after a failure that says so, the id looked up first; a
    /// recipe an earlier attempt made is written conditionally on its `updatedAt`.
    static func create(_ fields: RecipeFields, uuid: UUID, with requests: MealieDestinationRequests) async throws -> MealieRecipe {
        var mayExist = false
        for _ in 0..<5 {
            do {
                switch try await requests.create(fields, uuid: uuid, mayExist: mayExist) {
                case .created(let recipe): return recipe
                case .found(let recipe):
                    guard case .written(let written) = try await requests.write(fields, id: recipe.stamp.id, base: recipe.stamp.updatedAt) else {
                        throw MealiePeer.PeerError(message: "\(fields.title) was written in Mealie during its creation")
                    }
                    return written
                }
            } catch let error as MealieFailure {
                guard case .retry = error else { throw error }
                mayExist = true
            }
        }
        throw MealiePeer.PeerError(message: "the creation of \(fields.title) kept failing")
    }

    @Test("Diagnosis: a Mealie with its token, a refused token (exit 77), a URL that is not a Mealie's, nothing listening")
    func diagnosis() async throws {
        let session = try await MealieSession.shared()
        guard case .mealie(let group) = await Self.requests(session).diagnose() else { Issue.record("not a Mealie"); return }
        #expect(!group.name.isEmpty)
        let base = session.server.baseURL
        func diagnose(_ url: String, token: String) async throws -> MealieDiagnosis {
            let server = try #require(MealieServer(baseURL: url))
            let client = try HTTPClient(configuration: HTTPClientConfiguration(credentials: .of(token, at: url), connectTimeout: .seconds(10)))
            return await MealieDestinationRequests(server: server, client: client, token: token).diagnose()
        }
        let refused = try await diagnose(base, token: "not-a-token")
        #expect(refused.exitStatus == 77)
        #expect(refused == .tokenRefused("the Mealie at \(base) refused server.token (HTTP 401: Could not validate credentials); make "
            + "an API token in Mealie (your profile, API Tokens) and set it with `recipes config set server.token -`"))
        let elsewhere = try await diagnose(base + "/recipes", token: session.instance.token)
        guard case .notAMealie(let words) = elsewhere else { Issue.record("\(elsewhere)"); return }
        #expect(words.hasPrefix("server.url \(base)/recipes answers, but not as a Mealie 2.x does (GET /api/app/about gave HTTP 404: Not Found)"))
        let listener = try LoopbackFaultProxy(upstreamPort: 9)
        let port = listener.port
        listener.stop()
        #expect(try await diagnose("http://127.0.0.1:\(port)", token: "t").exitStatus == 75)
    }

    @Test("Create: the whole recipe lands (the fresh tag and tool created) and reads back as exactly the fields sent")
    func createWhole() async throws {
        let session = try await MealieSession.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: session.instance.url)
        defer { proxy.stop() }
        let requests = Self.requests(try MealieSession(instance: session.instance, url: proxy.baseURL))
        let uuid = UUID()
        let fields = Self.wholeFields("Whole \(uuid.uuidString.prefix(8))")
        let created = try await Self.create(fields, uuid: uuid, with: requests)
        #expect(created.stamp.id == uuid)
        #expect(created.fields == fields)
        #expect(try await requests.read(id: uuid)?.fields == fields)
        #expect(try await session.recipes(named: fields.title) == [fields.title])
    }

    @Test("Create after a lost answer: the id is looked up before the retry, so no second import and no \"(1)\"")
    func createAfterLostAnswer() async throws {
        let session = try await MealieSession.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: session.instance.url)
        defer { proxy.stop() }
        let requests = Self.requests(try MealieSession(instance: session.instance, url: proxy.baseURL))
        proxy.add(.dropAnswer) { $0.method == "POST" && $0.path == "/api/recipes/create/zip" }
        let uuid = UUID()
        var fields = Self.wholeFields("Lost once \(uuid.uuidString.prefix(8))")
        fields.details.tool = []
        do {
            _ = try await requests.create(fields, uuid: uuid, mayExist: false)
            Issue.record("the dropped answer was not seen")
        } catch {
            guard case .retry = error else { Issue.record("\(error)"); return }
        }
        let imports = { proxy.log.filter { $0.request.path == "/api/recipes/create/zip" }.count }
        #expect(imports() == 1)
        guard case .found(let found) = try await requests.create(fields, uuid: uuid, mayExist: true) else {
            Issue.record("not found by its id"); return
        }
        #expect(imports() == 1) // found by its id: not imported again
        #expect(found.fields.details.author.isEmpty) // the write after the import never came: the sync writes it now
        guard case .written(let written) = try await requests.write(fields, id: uuid, base: found.stamp.updatedAt) else {
            Issue.record("not written"); return
        }
        #expect(written.fields == fields)
        #expect(try await session.recipes(named: fields.title) == [fields.title])
    }

    @Test("An import sent again without the look-up (a crash before anything was recorded): Mealie refuses the id, found")
    func createAgainWithoutLookup() async throws {
        let session = try await MealieSession.shared()
        let requests = Self.requests(session)
        let uuid = UUID()
        let fields = RecipeFields(title: "Twice \(uuid.uuidString.prefix(8))", ingredients: ["1 egg"], steps: ["Boil."])
        guard case .created(let first) = try await requests.create(fields, uuid: uuid, mayExist: false) else {
            Issue.record("not created"); return
        }
        guard case .found(let again) = try await requests.create(fields, uuid: uuid, mayExist: false) else {
            Issue.record("not found"); return
        }
        #expect(again == first)
        #expect(try await session.recipes(named: fields.title) == [fields.title])
    }

    @Test("Conditional write: on its base, a PATCH of the one field; after a write in Mealie, stale with Mealie's copy, nothing sent")
    func conditionalWrite() async throws {
        let session = try await MealieSession.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: session.instance.url)
        defer { proxy.stop() }
        let requests = Self.requests(try MealieSession(instance: session.instance, url: proxy.baseURL))
        let uuid = UUID()
        var fields = Self.wholeFields("Edited \(uuid.uuidString.prefix(8))")
        let created = try await Self.create(fields, uuid: uuid, with: requests)
        let before = proxy.counters.requests
        fields.recipeYield = "6 servings"
        guard case .written(let written) = try await requests.write(fields, id: uuid, base: created.stamp.updatedAt) else {
            Issue.record("not written"); return
        }
        #expect(proxy.counters.requests - before == 2) // GET (the check), PATCH (only recipeYield)
        #expect(written.fields == fields, "\(written.fields)\n\(fields)\n\(written.document)")
        #expect(written.stamp.updatedAt > created.stamp.updatedAt)
        // Unchanged fields: the read, and no write.
        let unchanged = proxy.counters.requests
        #expect(try await requests.write(fields, id: uuid, base: written.stamp.updatedAt) == .written(written))
        #expect(proxy.counters.requests - unchanged == 1)

        let theirs = try await session.edit(id: uuid) { $0["description"] = "Theirs." }
        fields.description = "Mine."
        guard case .stale(let current) = try await requests.write(fields, id: uuid, base: written.stamp.updatedAt) else {
            Issue.record("not stale"); return
        }
        #expect(current.stamp.updatedAt == theirs.updatedAt && current.fields.description == "Theirs.")
        #expect(try await requests.read(id: uuid)?.fields.description == "Theirs.") // nothing was written
        // The renamed recipe: name with slug, so later writes still work.
        fields.description = "Theirs."
        fields.title = "Renamed \(uuid.uuidString.prefix(8))"
        guard case .written(let renamed) = try await requests.write(fields, id: uuid, base: theirs.updatedAt) else {
            Issue.record("rename not written"); return
        }
        #expect(renamed.stamp.slug == "renamed-\(uuid.uuidString.prefix(8).lowercased())")
        fields.recipeYield = "8 servings"
        guard case .written = try await requests.write(fields, id: uuid, base: renamed.stamp.updatedAt) else {
            Issue.record("the write after the rename failed"); return
        }
    }

    @Test("A write under faults: 503 with Retry-After sends nothing and says when; a PATCH whose answer was lost comes back stale with our own fields")
    func writeUnderFaults() async throws {
        let session = try await MealieSession.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: session.instance.url)
        defer { proxy.stop() }
        let requests = Self.requests(try MealieSession(instance: session.instance, url: proxy.baseURL))
        let uuid = UUID()
        var fields = RecipeFields(title: "Faulted \(uuid.uuidString.prefix(8))", ingredients: ["1 egg"], steps: ["Boil."])
        let created = try await Self.create(fields, uuid: uuid, with: requests)
        fields.description = "Soft."
        proxy.add(.unavailable(retryAfter: "7"))
        do {
            _ = try await requests.write(fields, id: uuid, base: created.stamp.updatedAt)
            Issue.record("the 503 was not seen")
        } catch {
            guard case .retry(_, let after) = error else { Issue.record("\(error)"); return }
            #expect(after == .seconds(7))
        }
        #expect(try await requests.read(id: uuid)?.stamp.updatedAt == created.stamp.updatedAt) // nothing written
        proxy.add(.dropAnswer) { $0.method == "PATCH" }
        do {
            // On the GET's kept-alive connection libcurl may send the PATCH again by itself and see its answer (docs:
            // "Lost answers on the wire"): safe, a PATCH sets values. Either way the PATCH reached Mealie.
            _ = try await requests.write(fields, id: uuid, base: created.stamp.updatedAt)
        } catch {
            guard case .retry = error else { Issue.record("\(error)"); return }
        }
        #expect(proxy.log.filter { $0.request.method == "PATCH" }.first?.fault == .dropAnswer)
        // The PATCH landed: the retry finds Mealie moved past the base, with exactly the fields sent. The sync takes a
        // stale copy equal to its draft as the write's answer (its updatedAt the new base), not as a conflict.
        guard case .stale(let current) = try await requests.write(fields, id: uuid, base: created.stamp.updatedAt) else {
            Issue.record("not stale"); return
        }
        #expect(current.fields == fields)
        #expect(try await session.recipes(named: fields.title) == [fields.title])
    }

    @Test("What recipes does not model survives a push: notes, settings, Mealie's extras, a rating, ingredient ids")
    func unmodeledSurvives() async throws {
        let session = try await MealieSession.shared()
        let requests = Self.requests(session)
        let uuid = UUID()
        var fields = Self.wholeFields("Kept \(uuid.uuidString.prefix(8))")
        let created = try await Self.create(fields, uuid: uuid, with: requests)
        let decorated = try await session.edit(id: uuid) { recipe in
            recipe["notes"] = [["title": "Tip", "text": "Use ripe ones."]]
            var settings = recipe["settings"] as? [String: Any] ?? [:]
            settings["public"] = false
            settings["showNutrition"] = true
            recipe["settings"] = settings
            var extras = recipe["extras"] as? [String: Any] ?? [:]
            extras["mine"] = "kept"
            recipe["extras"] = extras
        }
        #expect(decorated.updatedAt > created.stamp.updatedAt)
        let before = try #require(try await session.recipeJSON(id: uuid))
        fields.ingredients.append("pepper")
        fields.details.author = "Grace"
        fields.title = "Kept renamed \(uuid.uuidString.prefix(8))"
        guard case .written = try await requests.write(fields, id: uuid, base: decorated.updatedAt) else { Issue.record("not written"); return }
        let after = try #require(try await session.recipeJSON(id: uuid))
        func canonical(_ value: Any?) throws -> Data {
            try JSONSerialization.data(withJSONObject: [value ?? NSNull()], options: [.sortedKeys])
        }
        for key in ["notes", "settings", "rating", "assets", "dateAdded", "userId", "householdId", "groupId"] {
            #expect(try canonical(after[key]) == canonical(before[key]), "\(key) changed")
        }
        #expect((after["extras"] as? [String: Any])?["mine"] as? String == "kept")
        let ids = { (recipe: [String: Any]) in (recipe["recipeIngredient"] as? [[String: Any]] ?? []).compactMap { $0["referenceId"] as? String } }
        #expect(Array(ids(after).prefix(3)) == ids(before) && ids(after).count == 4)
        #expect(try await requests.read(id: uuid)?.fields == fields)
    }

    @Test("An ingredient that starts a Mealie section removed here: the heading moves to the next ingredient of the section, in Mealie")
    func headingMoves() async throws {
        let session = try await MealieSession.shared()
        let requests = Self.requests(session)
        let uuid = UUID()
        var fields = Self.wholeFields("Sections \(uuid.uuidString.prefix(8))")
        fields.ingredients = ["1 kg tomatoes", "1 onion", "salt", "pepper"]
        let created = try await Self.create(fields, uuid: uuid, with: requests)
        // Someone gives the list two sections in Mealie's web app.
        let sectioned = try await session.edit(id: uuid) { recipe in
            var ingredients = recipe["recipeIngredient"] as? [[String: Any]] ?? []
            ingredients[0]["title"] = "Base"
            ingredients[2]["title"] = "Seasoning"
            recipe["recipeIngredient"] = ingredients
        }
        #expect(sectioned.updatedAt > created.stamp.updatedAt)
        fields.ingredients = ["1 onion", "2 tsp salt", "pepper"]  // the tomatoes gone, the salt edited
        guard case .written = try await requests.write(fields, id: uuid, base: sectioned.updatedAt) else {
            Issue.record("not written"); return
        }
        let after = try #require(try await session.recipeJSON(id: uuid))
        let stored = (after["recipeIngredient"] as? [[String: Any]] ?? []).map {
            "\($0["note"] as? String ?? "?"): \($0["title"] as? String ?? "")"
        }
        #expect(stored == ["1 onion: Base", "2 tsp salt: Seasoning", "pepper: "], "\(stored)")
        #expect(try await requests.read(id: uuid)?.fields.ingredients == fields.ingredients)
    }

    @Test("Image: uploaded when changed, identified by the WebP Mealie serves, not sent again when confirmed; the new base read")
    func image() async throws {
        let session = try await MealieSession.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: session.instance.url)
        defer { proxy.stop() }
        let requests = Self.requests(try MealieSession(instance: session.instance, url: proxy.baseURL))
        let uuid = UUID()
        let fields = Self.wholeFields("Pictured \(uuid.uuidString.prefix(8))")
        let start = proxy.counters.requests
        let created = try await Self.create(fields, uuid: uuid, with: requests)
        let creation = proxy.counters.requests - start
        let png = try Data(contentsOf: Fixture.directory.appendingPathComponent("tiny.png"))
        let uploaded = try #require(try await requests.putImage(png, fileExtension: "png", mediaType: "image/png", recipe: created, confirmedSHA256: nil))
        let withImage = proxy.counters.requests - start
        #expect(withImage - creation == 3) // the upload, the served WebP, the recipe read again
        #expect(uploaded.recipe.stamp.imageKey == uploaded.image.seen.key && uploaded.recipe.stamp.updatedAt > created.stamp.updatedAt)
        #expect(uploaded.image.bytes.prefix(4) == Data("RIFF".utf8))
        let another = String(repeating: "0", count: 64) // another image was confirmed: this one is uploaded
        let confirmed = try #require(try await requests.putImage(png, fileExtension: "png", mediaType: "image/png",
                                                                 recipe: uploaded.recipe, confirmedSHA256: another))
        #expect(confirmed.image.seen.sha256 == uploaded.image.seen.sha256) // the same PNG, the same served WebP
        let local = uploaded.image.seen.sha256
        let quiet = proxy.counters.requests
        #expect(try await requests.putImage(uploaded.image.bytes, fileExtension: "webp", mediaType: "image/webp",
                                            recipe: confirmed.recipe, confirmedSHA256: local) == nil)
        #expect(proxy.counters.requests == quiet) // unchanged since confirmed: nothing sent
        let downloaded = try #require(try await requests.downloadImage(id: uuid, key: confirmed.image.seen.key))
        #expect(downloaded.seen == confirmed.image.seen)
        #expect(try await requests.probeImage(id: uuid) == confirmed.image.seen.etag)
        print("figures: a first upload with an image took \(withImage) requests, \(creation) of them for the recipe")
    }

    @Test("Changes since a cursor list a new recipe; delete is conditional on the base; deletions found by the id listing")
    func changesAndDeletion() async throws {
        let session = try await MealieSession.shared()
        let requests = Self.requests(session)
        let uuid = UUID()
        let created = try await Self.create(Self.wholeFields("Gone \(uuid.uuidString.prefix(8))"), uuid: uuid, with: requests)
        var position = ChangeFeed.start(from: ChangeCursor(updatedAt: created.stamp.updatedAt.movedBack(by: .microseconds(1)), id: nil))
        var seen: [RecipeStamp] = []
        while true {
            let step = try await requests.changes(after: position, pageSize: 2)
            seen += step.items
            position = step.next
            if !step.more { break }
        }
        #expect(seen.contains { $0.id == uuid && $0.updatedAt == created.stamp.updatedAt })
        let count = try await requests.recipeCount()
        #expect(try await requests.allRecipeIDs(pageSize: 3).contains(uuid))

        let edited = try await session.edit(id: uuid) { $0["description"] = "Edited in Mealie." }
        guard case .stale(let current) = try await requests.delete(id: uuid, base: created.stamp.updatedAt) else {
            Issue.record("deleted over an edit"); return
        }
        #expect(current.stamp.updatedAt == edited.updatedAt)
        #expect(try await requests.delete(id: uuid, base: edited.updatedAt) == .deleted)
        #expect(try await requests.delete(id: uuid, base: edited.updatedAt) == .alreadyGone)
        #expect(try await requests.read(id: uuid) == nil)
        #expect(try await requests.write(Self.wholeFields("x"), id: uuid, base: edited.updatedAt) == .gone)
        #expect(!(try await requests.allRecipeIDs(pageSize: 3).contains(uuid)))
        #expect(DeletionCheck.deleted(known: [uuid], listed: try await requests.allRecipeIDs()) == [uuid])
        #expect(try await requests.recipeCount() <= count)
    }

    @Test("The window between the read and the PATCH of a write, measured (printed, not asserted): Mealie has no If-Match")
    func writeWindow() async throws {
        let session = try await MealieSession.shared()
        let requests = Self.requests(session)
        let uuid = UUID()
        var fields = Self.wholeFields("Window \(uuid.uuidString.prefix(8))")
        var base = try await Self.create(fields, uuid: uuid, with: requests).stamp.updatedAt
        var windows: [Duration] = []
        var reads: [Duration] = []
        let clock = ContinuousClock()
        for round in 0..<20 {
            fields.recipeYield = "\(round) servings"
            let start = clock.now
            let current = try #require(try await requests.read(id: uuid))
            let read = clock.now
            #expect(current.stamp.updatedAt == base)
            guard case .patch(let body) = MealieMapping.write(fields, over: current.document, catalog: [:], newID: { UUID() }) else {
                Issue.record("no patch"); return
            }
            base = try await requests.patch(id: uuid, body: body).stamp.updatedAt
            windows.append(clock.now - read)
            reads.append(read - start)
        }
        let sorted = windows.sorted()
        print("figures: read-to-PATCH window over 20 one-field writes: median \(sorted[10]), max \(sorted[19]); the GET itself median "
              + "\(reads.sorted()[10])")
    }

    @Test("Requests per recipe: a first upload 2 (+3 for its image), 3 when it has what the import cannot carry; an edit 2")
    func requestsPerRecipe() async throws {
        let session = try await MealieSession.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: session.instance.url)
        defer { proxy.stop() }
        let requests = Self.requests(try MealieSession(instance: session.instance, url: proxy.baseURL))
        func counted<T>(_ body: () async throws -> T) async throws -> (T, [String]) {
            let start = proxy.log.count
            let value = try await body()
            return (value, proxy.log.dropFirst(start).map { "\($0.request.method) \($0.request.path.prefix { $0 != "?" })" })
        }
        let uuid = UUID()
        var fields = RecipeFields(
            title: "Counted \(uuid.uuidString.prefix(8))", description: "Plain.", recipeYield: "2", keywords: "Soup",
            ingredients: ["1 kg tomatoes"], steps: ["Chop."], details: RecipeDetails(prepTime: "PT5M", recipeCategory: ["Dinner"]))
        let (created, creation) = try await counted { try await requests.create(fields, uuid: uuid, mayExist: false).recipe }
        let id = uuid.uuidString.lowercased()
        #expect(creation == ["POST /api/recipes/create/zip", "GET /api/recipes/\(id)"])
        let png = try Data(contentsOf: Fixture.directory.appendingPathComponent("tiny.png"))
        let (uploaded, image) = try await counted {
            try await requests.putImage(png, fileExtension: "png", mediaType: "image/png", recipe: created, confirmedSHA256: nil)
        }
        #expect(image == ["PUT /api/recipes/\(created.stamp.slug)/image", "GET /api/media/recipes/\(id)/images/original.webp",
                          "GET /api/recipes/\(id)"])
        fields.description = "Edited."
        let (_, edit) = try await counted { try await requests.write(fields, id: uuid, base: try #require(uploaded).recipe.stamp.updatedAt) }
        #expect(edit == ["GET /api/recipes/\(id)", "PATCH /api/recipes/\(id)"])

        let other = UUID()
        fields.title = "Counted two tags \(other.uuidString.prefix(8))"
        fields.keywords = "Soup,Quick"
        let (_, twoTags) = try await counted { try await requests.create(fields, uuid: other, mayExist: false) }
        #expect(twoTags == ["POST /api/recipes/create/zip", "GET /api/recipes/\(other.uuidString.lowercased())",
                            "PATCH /api/recipes/\(other.uuidString.lowercased())"]) // the order of the two tags, in extras
    }
}
