import Foundation
import HTTPTestSupport
import MealieAPI
import MealieTestSupport
import Testing
import Transport

/// Against the real Mealie (`MealiePeer`): each test works on recipes it made, since the tests share one Mealie.
/// Serialized: Mealie's zip imports share one temporary file, so imports of tests running side by side would
/// collide (`concurrentImports` shows what that does); the sync sends its own imports one at a time too.
@Suite("Against a real Mealie 2.0: the requests and decisions of MealieAPI", .serialized,
       .enabled(if: MealiePeer.isEnabled, Comment(rawValue: MealiePeer.unavailableReason ?? "")))
struct MealieLiveTests {
    static let now = Date()

    @Test("Identity: Mealie's version without a token, the group with it, and a wrong token refused")
    func identity() async throws {
        let session = try await MealieSession.shared()
        #expect(!(try MealieAnswer.about(await session.send(session.server.about())).get()).isEmpty)
        let group = try MealieAnswer.group(await session.send(session.server.group())).get()
        #expect(!group.name.isEmpty)
        let stranger = try HTTPClient(configuration: HTTPClientConfiguration(credentials: .of("not-a-token", at: session.server.baseURL)))
        let refused = try await stranger.send(session.server.group())
        #expect(refused.status == 401)
        #expect(MealieAnswer.group(refused).failure?.problem
            == .unexpectedStatus(expected: "200", mealieSays: "Could not validate credentials"))
    }

    @Test("The zip import keeps the client's id; sent again it gets 500, the read-back finds it, and no duplicate exists")
    func createExactlyOnce() async throws {
        let session = try await MealieSession.shared()
        let id = UUID()
        let name = "Once \(id.uuidString.prefix(8))"
        let form = try Self.importForm(id: id, name: name)
        let first = try await session.send(session.server.importRecipe(form))
        #expect(try MealieAnswer.createdSlug(first).get() == "once-\(id.uuidString.prefix(8).lowercased())")
        #expect(RecipeCreation.afterImport(.success(first), now: Self.now) == .readBack(importStatus: 201))
        let again = RecipeCreation.afterImport(.success(try await session.send(session.server.importRecipe(form))), now: Self.now)
        #expect(again == .readBack(importStatus: 500))
        let found = RecipeCreation.afterReadBack(.success(try await session.send(session.server.recipe(id: id))), id: id,
                                                 importStatus: 500, now: Self.now)
        guard case .created(let stamp) = found else { Issue.record("\(found)"); return }
        #expect(stamp.id == id && stamp.name == name)
        #expect(try await session.recipes(named: name) == [name])
    }

    @Test("Imports sent side by side collide in Mealie's one temporary file; read back by id, each converges on one recipe")
    func concurrentImports() async throws {
        let session = try await MealieSession.shared()
        let recipes = (0..<8).map { _ in UUID() }.map { ($0, "Side by side \($0.uuidString.prefix(8))") }
        let all = try await withThrowingTaskGroup(of: [String].self) { group in
            for (id, name) in recipes { group.addTask { try await Self.create(id: id, name: name, session: session) } }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(all.allSatisfy { $0.last == "created" })
        for (id, name) in recipes {
            #expect(try await session.recipes(named: name) == [name])
            #expect(try await session.stamp(id: id).name == name)
        }
    }

    @Test("A recipe whose UUID is not version 4 is refused by the import under it, and created under its derived id")
    func derivedID() async throws {
        let session = try await MealieSession.shared()
        let uuid = try #require(UUID(uuidString: "01890a5d-ac96-774b-bcce-\(String(format: "%012x", Int.random(in: 0..<(1 << 40))))"))
        let refused = try await session.send(session.server.importRecipe(try Self.importForm(id: uuid, name: "Version 7")))
        #expect(refused.status == 500)
        #expect(try MealieAnswer.recipe(await session.send(session.server.recipe(id: uuid)), id: uuid).get() == nil)
        let id = MealieRecipeID.of(uuid)
        let name = "Derived \(id.uuidString.prefix(8))"
        #expect(try await Self.create(id: id, name: name, session: session) == ["readBack 201", "created"])
    }

    @Test("A lost answer (the import reached Mealie, its answer was dropped) is sent again and converges on one recipe")
    func lostAnswer() async throws {
        let instance = try await MealiePeer.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: instance.url)
        defer { proxy.stop() }
        let session = try MealieSession(instance: instance, url: proxy.baseURL) // a fresh client: a fresh connection
        proxy.add(.dropAnswer) { $0.method == "POST" && $0.path == "/api/recipes/create/zip" }
        let id = UUID()
        let name = "Lost \(id.uuidString.prefix(8))"
        let steps = try await Self.create(id: id, name: name, session: session)
        #expect(steps == ["retry", "readBack 500", "created"]) // the import landed: sent again, Mealie refuses the id
        #expect(proxy.counters.dropped == 1)
        #expect(try await session.recipes(named: name) == [name])
    }

    @Test("A lost answer on a kept-alive connection: libcurl itself sends the import again, Mealie answers 500, one recipe")
    func lostAnswerOnReusedConnection() async throws {
        let instance = try await MealiePeer.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: instance.url)
        defer { proxy.stop() }
        let session = try MealieSession(instance: instance, url: proxy.baseURL)
        _ = try await session.send(session.server.about()) // opens the connection the import then reuses
        proxy.add(.dropAnswer) { $0.method == "POST" }
        let id = UUID()
        let name = "Reused \(id.uuidString.prefix(8))"
        let steps = try await Self.create(id: id, name: name, session: session)
        #expect(steps == ["readBack 500", "created"])
        #expect(proxy.log.filter { $0.request.method == "POST" }.map(\.fault) == [.dropAnswer, .forward])
        #expect(try await session.recipes(named: name) == [name])
    }

    @Test("A reset before the request reaches Mealie creates nothing; the retry creates it once")
    func resetBeforeMealie() async throws {
        let instance = try await MealiePeer.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: instance.url)
        defer { proxy.stop() }
        let session = try MealieSession(instance: instance, url: proxy.baseURL)
        proxy.add(.resetBeforeUpstream, times: 2) { $0.method == "POST" }
        let id = UUID()
        let name = "Reset \(id.uuidString.prefix(8))"
        let steps = try await Self.create(id: id, name: name, session: session)
        #expect(steps == ["retry", "retry", "readBack 201", "created"])
        #expect(proxy.log.filter { $0.request.method == "POST" }.map(\.fault) == [.resetBeforeUpstream, .resetBeforeUpstream, .forward])
        #expect(proxy.counters.forwarded == 2) // the third import and its read-back
        #expect(try await session.recipes(named: name) == [name])
    }

    @Test("503 with Retry-After: the creation waits that long, and nothing reached Mealie")
    func unavailable() async throws {
        let instance = try await MealiePeer.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: instance.url)
        defer { proxy.stop() }
        let session = try MealieSession(instance: instance, url: proxy.baseURL)
        proxy.add(.unavailable(retryAfter: "7"))
        let id = UUID()
        let result = await Self.outcome { try await session.send(session.server.importRecipe(try Self.importForm(id: id, name: "Wait"))) }
        guard case .retry(_, let after) = RecipeCreation.afterImport(result, now: Self.now) else { Issue.record("\(result)"); return }
        #expect(after == .seconds(7))
        #expect(proxy.counters.forwarded == 0 && proxy.counters.unavailable == 1)
        #expect(try MealieAnswer.recipe(await session.send(session.server.recipe(id: id)), id: id).get() == nil)
    }

    @Test("The image form is accepted: Mealie answers a new key, serves WebP, moves updatedAt; the same PNG gives the same WebP")
    func imageUpload() async throws {
        let session = try await MealieSession.shared()
        let created = try await session.createRecipe(name: "Picture \(UUID().uuidString.prefix(8))")
        let png = try Data(contentsOf: Fixture.directory.appendingPathComponent("tiny.png"))
        var random = SystemRandomNumberGenerator()
        func upload(_ bytes: Data, _ fileExtension: String, _ type: String) async throws -> Data {
            let form = try #require(MultipartForm.imageUpload(bytes, fileExtension: fileExtension, mediaType: type,
                                                             boundary: MultipartForm.randomBoundary(using: &random)))
            let key = try MealieAnswer.imageKey(await session.send(session.server.uploadImage(slug: created.slug, form))).get()
            #expect(try await session.stamp(id: created.id).imageKey == key)
            let image = try await session.send(session.server.image(id: created.id))
            #expect(image.status == 200 && image.header("content-type") == "image/webp")
            #expect(image.body.prefix(4) == Data("RIFF".utf8) && image.body.dropFirst(8).prefix(4) == Data("WEBP".utf8))
            return image.body
        }
        let first = try await upload(png, "png", "image/png")
        let after = try await session.stamp(id: created.id)
        #expect(after.updatedAt > created.updatedAt)
        #expect(try await upload(png, "png", "image/png") == first) // Mealie's encoding is deterministic
        #expect(try await upload(first, "webp", "image/webp") != first) // and re-encodes what it served
        // The probe: one byte and the file's ETag, which a new upload of even the same image changes.
        let probe = try await session.send(session.server.imageProbe(id: created.id))
        #expect(probe.status == 206 && probe.body.count == 1)
        let etag = try MealieAnswer.imageETag(probe).get()
        _ = try await upload(png, "png", "image/png")
        #expect(try MealieAnswer.imageETag(await session.send(session.server.imageProbe(id: created.id))).get() != etag)
        let byID = try await session.send(session.server.uploadImage(slug: created.id.uuidString.lowercased(),
                                                                      try #require(MultipartForm.imageUpload(png, fileExtension: "png", mediaType: "image/png", boundary: "b"))))
        #expect(byID.status == 404)
    }

    @Test("The changes: pages in (updatedAt, id) order from a cursor, strict to the microsecond, an edit comes back as news")
    func changes() async throws {
        let session = try await MealieSession.shared()
        var made: [RecipeStamp] = []
        for index in 0..<3 { made.append(try await session.createRecipe(name: "Feed \(index) \(UUID().uuidString.prefix(8))")) }
        let start = ChangeCursor(updatedAt: made[0].updatedAt.movedBack(by: .microseconds(1)), id: nil)
        let seen = try await Self.readChanges(after: start, pageSize: 2, session: session)
        let mine = seen.filter { stamp in made.contains { $0.id == stamp.id } }
        #expect(mine == made)

        let afterLast = ChangeCursor(after: made[2])
        #expect(try await Self.readChanges(after: afterLast, pageSize: 50, session: session).allSatisfy { $0.id != made[2].id })
        let edited = try await session.edit(id: made[0].id) { $0["description"] = "Edited in Mealie." }
        let news = try await Self.readChanges(after: afterLast, pageSize: 50, session: session).filter { $0.id == made[0].id }
        #expect(news == [edited])
        #expect(ChangeFeed.isNews(edited, known: made[0].updatedAt))
        #expect(!ChangeFeed.isNews(edited, known: edited.updatedAt)) // the sync's own write, as its answer gave it
        let atEdit = try await Self.readChanges(after: ChangeCursor(updatedAt: edited.updatedAt, id: nil), pageSize: 50, session: session)
        #expect(!atEdit.contains { $0.id == made[0].id }) // `>` is strict at the microsecond
    }

    @Test("Deletions: the id listing names every recipe once, a deleted one no more; DELETE answers deleted, then gone")
    func deletions() async throws {
        let session = try await MealieSession.shared()
        let kept = try await session.createRecipe(name: "Kept \(UUID().uuidString.prefix(8))")
        let doomed = try await session.createRecipe(name: "Doomed \(UUID().uuidString.prefix(8))")
        let before = try await Self.listIDs(pageSize: 3, session: session)
        #expect(before.contains(kept.id) && before.contains(doomed.id))
        #expect(try MealieAnswer.deletion(await session.send(session.server.deleteRecipe(id: doomed.id)), id: doomed.id).get())
        #expect(try !MealieAnswer.deletion(await session.send(session.server.deleteRecipe(id: doomed.id)), id: doomed.id).get())
        let after = try await Self.listIDs(pageSize: 3, session: session)
        #expect(DeletionCheck.deleted(known: [kept.id, doomed.id], listed: after) == [doomed.id])
        let count = try MealieAnswer.recipePage(await session.send(session.server.recipeCount()), pageSize: 1).get()
        #expect(count.total >= after.count - 5) // others' tests may add or delete meanwhile; the count is readable
    }

    @Test("A full update (GET, change, PUT) answers the stored recipe, whose stamp a later GET repeats")
    func fullUpdate() async throws {
        let session = try await MealieSession.shared()
        let created = try await session.createRecipe(name: "Update \(UUID().uuidString.prefix(8))")
        let updated = try await session.edit(id: created.id) { $0["recipeYield"] = "2 bowls" }
        #expect(updated.updatedAt > created.updatedAt)
        #expect(try await session.stamp(id: created.id) == updated)
        #expect(try await session.recipeJSON(id: created.id)?["recipeYield"] as? String == "2 bowls")
    }

    @Test("Tags: created once, a second creation with the same name refused (500), both readable")
    func organizers() async throws {
        let session = try await MealieSession.shared()
        let name = "Tag \(UUID().uuidString.prefix(8))"
        let tag = try MealieAnswer.createdOrganizer(await session.send(session.server.createOrganizer(.tags, name: name)), kind: .tags).get()
        #expect(tag.name == name)
        let duplicate = try await session.send(session.server.createOrganizer(.tags, name: name))
        #expect(duplicate.status == 500)
        let all = try MealieAnswer.organizers(await session.send(session.server.organizers(.tags)), kind: .tags).get()
        #expect(all.filter { $0.name == name } == [tag])
    }

    // MARK: Helpers

    static func importForm(id: UUID, name: String) throws -> MultipartForm {
        let json = try JSONSerialization.data(withJSONObject: [
            "id": id.uuidString.lowercased(), "name": name,
            "recipeIngredient": [["note": "1 tomato"]], "recipeInstructions": [["text": "Chop."]],
        ])
        var random = SystemRandomNumberGenerator()
        guard let form = MultipartForm.recipeImport(RecipeArchive.zip(recipeJSON: json), boundary: MultipartForm.randomBoundary(using: &random))
        else { throw MealiePeer.PeerError(message: "the boundary occurs in the archive") }
        return form
    }

    static func outcome(_ send: () async throws -> HTTPResponse) async -> Result<HTTPResponse, TransportError> {
        do {
            return .success(try await send())
        } catch let error as TransportError {
            return .failure(error)
        } catch {
            return .failure(TransportError(kind: .other, message: "\(error)"))
        }
    }

    /// Runs the creation as the chain will: import, read back, import again after a retry (at most 5 rounds); the
    /// names of the decisions, in order.
    static func create(id: UUID, name: String, session: MealieSession) async throws -> [String] {
        var steps: [String] = []
        let form = try importForm(id: id, name: name)
        for _ in 0..<5 {
            let next = RecipeCreation.afterImport(await outcome { try await session.send(session.server.importRecipe(form)) }, now: now)
            switch next {
            case .readBack(let status):
                steps.append("readBack \(status)")
                let found = RecipeCreation.afterReadBack(await outcome { try await session.send(session.server.recipe(id: id)) }, id: id,
                                                         importStatus: status, now: now)
                if case .created = found {
                    steps.append("created")
                    return steps
                }
                steps.append("\(found)")
            case .retry:
                steps.append("retry")
            default:
                steps.append("\(next)")
                return steps
            }
        }
        return steps
    }

    static func readChanges(after start: ChangeCursor, pageSize: Int, session: MealieSession) async throws -> [RecipeStamp] {
        var position: ChangeCursor? = start
        var seen: [RecipeStamp] = []
        while true {
            let response = try await session.send(session.server.changes(after: position, pageSize: pageSize))
            let step = try ChangeFeed.step(try MealieAnswer.recipePage(response, pageSize: pageSize).get(), after: position,
                                           pageSize: pageSize).get()
            seen += step.items
            position = step.next
            if !step.more { return seen }
        }
    }

    static func listIDs(pageSize: Int, session: MealieSession) async throws -> Set<UUID> {
        var position: UUID?
        var listed: [UUID] = []
        while true {
            let response = try await session.send(session.server.recipeIDs(after: position, pageSize: pageSize))
            let step = try DeletionCheck.step(try MealieAnswer.recipePage(response, pageSize: pageSize).get(), after: position,
                                              pageSize: pageSize).get()
            listed += step.ids
            position = step.next
            if !step.more {
                #expect(Set(listed).count == listed.count) // every recipe once
                return Set(listed)
            }
        }
    }
}
