import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTestSupport
import MealieAPI
import MealieTestSupport
import Testing
import Transport

/// `recipes sync` with server.kind mealie: the debug binary against the real Mealie of the test peer. Serialized, so
/// that this suite's imports never meet each other in Mealie's one temporary file.
@Suite("recipes sync with kind mealie, the debug binary against a real Mealie 2.0", .serialized,
       .enabled(if: MealiePeer.isEnabled, Comment(rawValue: MealiePeer.unavailableReason ?? "")))
struct MealieSyncTests {
    /// A title no other test uses.
    static func title(_ what: String) -> String { "\(what) \(UUID().uuidString.prefix(8))" }

    /// Creates recipe `title` in `home` with an ingredient, a step and (when `image`) the test PNG; its uuid.
    static func newRecipe(_ title: String, in home: MealieHome, image: Bool = true) throws -> String {
        #expect(try home.run(["new", title]).status == 0)
        #expect(try home.run(["ingredient", "add", "1", "1 kg tomatoes"]).status == 0)
        #expect(try home.run(["step", "add", "1", "Simmer 20 minutes."]).status == 0)
        if image { #expect(try home.run(["image", "set", "1", tinyPNGPath]).status == 0) }
        return try require(try home.show("1")["uuid"] as? String, "uuid")
    }

    @Test("Create with an image, update, rename, delete here: one Mealie recipe throughout, with its picture; nothing left")
    func pushLifecycle() async throws {
        let session = try await MealieSession.shared()
        let home = try MealieHome(url: session.instance.url, token: session.instance.token)
        let title = Self.title("Tomato soup")
        let uuid = try Self.newRecipe(title, in: home)
        let first = try home.run(["sync"])
        #expect(first.status == 0, "\(first)")
        // Its version is the time Mealie changed it, and the text says so (`--json` keeps the microseconds).
        #expect(first.stdout.contains(": done (updated on Mealie at 20"), "\(first)")
        #expect(try home.run(["show", "1", "--details"]).stdout.contains("\nserver:       updated on Mealie at 20"))
        let created = try require(try await session.recipe(uuid), "the recipe in Mealie")
        #expect(created["name"] as? String == title)
        #expect((created["recipeIngredient"] as? [[String: Any]])?.compactMap { $0["note"] as? String } == ["1 kg tomatoes"])
        #expect(created["image"] is String)
        #expect(try await session.servesImage(uuid))
        #expect(try home.state(uuid) == "synced")

        // A sync with nothing new uploads nothing again (the image confirmed, the version the same).
        let version = try home.row(uuid)?["serverVersion"] as? Int
        #expect(try home.run(["sync"]).status == 0)
        #expect(try home.row(uuid)?["serverVersion"] as? Int == version)

        #expect(try home.run(["description", "1", "Red and warm."]).status == 0)
        #expect(try home.run(["sync"]).status == 0)
        #expect(try await session.recipe(uuid)?["description"] as? String == "Red and warm.")

        let renamed = Self.title("Tomato bisque")
        #expect(try home.run(["title", "1", renamed]).status == 0)
        let rename = try home.run(["sync"])
        #expect(rename.status == 0, "\(rename)")
        let after = try require(try await session.recipe(uuid), "the renamed recipe")
        #expect(after["name"] as? String == renamed)
        #expect((after["slug"] as? String)?.hasPrefix("tomato-bisque") == true)
        #expect(try await session.count(title) == 0)
        #expect(try await session.count(renamed) == 1)
        // The rename did not wedge it: a later write works.
        #expect(try home.run(["yield", "1", "4 servings"]).status == 0)
        #expect(try home.run(["sync"]).status == 0)
        #expect(try await session.recipe(uuid)?["recipeYield"] as? String == "4 servings")
        #expect(try await session.servesImage(uuid))

        #expect(try home.run(["delete", "1"]).status == 0)
        let deletion = try home.run(["sync"])
        #expect(deletion.status == 0, "\(deletion)")
        #expect(try await session.recipe(uuid) == nil)
        #expect(try home.row(uuid) == nil)
        #expect(home.leftovers().isEmpty, "\(home.leftovers())")
    }

    @Test("Restore into an empty home with the picture; edits made in Mealie come back (cron's run too); deleted in Mealie, gone here")
    func pullAndDeleteInMealie() async throws {
        let session = try await MealieSession.shared()
        let laptop = try MealieHome(url: session.instance.url, token: session.instance.token)
        let title = Self.title("Lentil stew")
        let uuid = try Self.newRecipe(title, in: laptop)
        #expect(try laptop.run(["sync"]).status == 0)

        let tablet = try MealieHome(url: session.instance.url, token: session.instance.token)
        let restore = try tablet.run(["sync"])
        #expect(restore.status == 0, "\(restore)")
        let restored = try tablet.row(uuid)
        #expect(restored?["title"] as? String == title && restored?["state"] as? String == "synced")
        #expect(restored?["image"] is String, "\(String(describing: restored))")

        try await session.patch(uuid, ["description": "Made in Mealie's web app."])
        let pull = try laptop.run(["sync", "--background"])  // cron's run: no one-request feed check with a Mealie
        #expect(pull.status == 0, "\(pull)")
        #expect(try laptop.show("1")["description"] as? String == "Made in Mealie's web app.")
        // The laptop's own image stays its own (never replaced by Mealie's WebP of it).
        #expect((try laptop.row(uuid)?["image"] as? String)?.hasSuffix(".png") == true)

        let gone = try await session.send(session.server.deleteRecipe(id: try require(UUID(uuidString: uuid), "uuid")))
        #expect(gone.status == 200)
        let afterDelete = try laptop.run(["sync"])
        #expect(afterDelete.status == 0, "\(afterDelete)")
        #expect(try laptop.row(uuid) == nil)
        #expect(laptop.leftovers().isEmpty && tablet.leftovers().isEmpty)
    }

    @Test("A delete synced to Mealie, undone here: the next sync makes the recipe again in Mealie, once, and it is synced")
    func undoDeleteInMealie() async throws {
        let session = try await MealieSession.shared()
        let home = try MealieHome(url: session.instance.url, token: session.instance.token)
        let title = Self.title("Shakshuka")
        _ = try Self.newRecipe(title, in: home, image: false)
        #expect(try home.run(["sync"]).status == 0)
        #expect(try home.run(["delete", "1"]).status == 0)
        let deleted = try home.run(["sync"])
        #expect(deleted.status == 0, "\(deleted)")
        #expect(try await session.count(title) == 0)
        let undo = try home.run(["undo", "1"])
        #expect(undo.status == 0, "\(undo)")
        let back = try home.run(["sync"])
        #expect(back.status == 0, "\(back)")
        #expect(try await session.count(title) == 1)
        #expect((try home.show("1")["sync"] as? [String: Any])?["state"] as? String == "synced")
    }

    @Test("Two fields edited on both sides merge; the same field is a conflict a person resolves")
    func mergeAndConflict() async throws {
        let session = try await MealieSession.shared()
        let home = try MealieHome(url: session.instance.url, token: session.instance.token)
        let title = Self.title("Pancakes")
        let uuid = try Self.newRecipe(title, in: home, image: false)
        #expect(try home.run(["sync"]).status == 0)

        try await session.patch(uuid, ["description": "Theirs."])
        #expect(try home.run(["yield", "1", "8 pancakes"]).status == 0)
        let merge = try home.run(["sync"])
        #expect(merge.status == 0, "\(merge)")
        let merged = try require(try await session.recipe(uuid), "the merged recipe")
        #expect(merged["description"] as? String == "Theirs." && merged["recipeYield"] as? String == "8 pancakes")
        #expect(try home.show("1")["description"] as? String == "Theirs.")

        try await session.patch(uuid, ["recipeYield": "10 pancakes"])
        #expect(try home.run(["yield", "1", "12 pancakes"]).status == 0)
        let conflict = try home.run(["sync"])
        #expect(conflict.status == 1, "\(conflict)")
        #expect(try home.state(uuid) == "conflict")
        #expect(try await session.recipe(uuid)?["recipeYield"] as? String == "10 pancakes")
        #expect(try home.run(["resolve", "1", "--mine"]).status == 0)
        let resolved = try home.run(["sync"])
        #expect(resolved.status == 0, "\(resolved)")
        #expect(try await session.recipe(uuid)?["recipeYield"] as? String == "12 pancakes")
        #expect(try await session.count(title) == 1)
    }

    @Test("Lost answers, resets and 503 with Retry-After on the way to Mealie: one recipe, every field, its picture")
    func lostAnswers() async throws {
        let session = try await MealieSession.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: session.instance.url)
        defer { proxy.stop() }
        let home = try MealieHome(url: proxy.baseURL, token: session.instance.token)
        let title = Self.title("Lost soup")
        let uuid = try Self.newRecipe(title, in: home)
        proxy.add(.dropAnswer, where: { $0.method == "POST" && $0.path.hasSuffix("/create/zip") })
        proxy.add(.unavailable(retryAfter: "1"), where: { $0.method == "PUT" && $0.path.hasSuffix("/image") })
        proxy.add(.resetBeforeUpstream, where: { $0.method == "GET" && $0.path.hasSuffix("/original.webp") })
        let first = try home.run(["sync"])
        #expect(first.status == 0, "\(first)")
        #expect(proxy.counters.dropped == 1 && proxy.counters.resets == 1 && proxy.counters.unavailable == 1, "\(proxy.counters)")
        #expect(try await session.count(title) == 1)
        #expect(try await session.servesImage(uuid))
        #expect(try home.state(uuid) == "synced")

        proxy.add(.resetAfterUpstream, where: { $0.method == "PATCH" })
        #expect(try home.run(["description", "1", "After a lost answer."]).status == 0)
        let second = try home.run(["sync"])
        #expect(second.status == 0, "\(second)")
        #expect(try await session.recipe(uuid)?["description"] as? String == "After a lost answer.")
        #expect(try home.state(uuid) == "synced")
        #expect(try await session.count(title) == 1)
        #expect(home.leftovers().isEmpty, "\(home.leftovers())")
    }

    @Test("Requests per recipe: a first upload with a picture is the import, its read-back, the picture, what Mealie serves, a read; an edit a GET and a PATCH")
    func requestsPerRecipe() async throws {
        let session = try await MealieSession.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: session.instance.url)
        defer { proxy.stop() }
        let home = try MealieHome(url: proxy.baseURL, token: session.instance.token)
        let uuid = try Self.newRecipe(Self.title("Counted soup"), in: home)
        func sent(_ arguments: [String]) throws -> [String] {
            let before = proxy.log.count
            let run = try home.run(arguments)
            #expect(run.status == 0, "\(run)")
            return proxy.log.dropFirst(before).map { entry in
                "\(entry.request.method) " + entry.request.path.replacingOccurrences(of: uuid, with: "{id}")
            }
        }
        let identity = ["GET /api/app/about", "GET /api/groups/self"]  // once per run
        let first = try sent(["sync", "1"])
        #expect(first.count == 7 && Array(first.prefix(2)) == identity, "\(first)")
        #expect(Array(first.dropFirst(2)).map { $0.replacingOccurrences(of: #"/api/recipes/[a-z0-9-]+/image"#, with: "/api/recipes/{slug}/image", options: .regularExpression) }
                == ["POST /api/recipes/create/zip", "GET /api/recipes/{id}", "PUT /api/recipes/{slug}/image",
                    "GET /api/media/recipes/{id}/images/original.webp", "GET /api/recipes/{id}"], "\(first)")
        #expect(try home.run(["description", "1", "Counted."]).status == 0)
        #expect(try sent(["sync", "1"]) == identity + ["GET /api/recipes/{id}", "PATCH /api/recipes/{id}"])
    }

    @Test("kill -9 during a sync, then a sync: one recipe per title in Mealie, nothing lost, nothing left behind")
    func killDuringSync() async throws {
        let session = try await MealieSession.shared()
        let proxy = try LoopbackFaultProxy(upstreamURL: session.instance.url)
        defer { proxy.stop() }
        let home = try MealieHome(url: proxy.baseURL, token: session.instance.token)
        let prefix = Self.title("Killed")
        for index in 1...4 {
            #expect(try home.run(["new", "\(prefix) \(index)"]).status == 0)
            #expect(try home.run(["image", "set", "\(index)", tinyPNGPath]).status == 0)
        }
        let running = try home.start(["sync"])
        let imported = (0..<600).contains { _ in
            usleep(20_000)
            return proxy.log.contains { $0.request.path.hasSuffix("/create/zip") }
        }
        running.kill9()
        _ = running.wait()
        #expect(imported, "no import was sent before the kill")
        let again = try home.run(["sync"])
        #expect(again.status == 0, "\(again)")
        #expect(try home.status().allSatisfy { $0["state"] as? String == "synced" })
        for index in 1...4 {
            #expect(try await session.recipes(named: "\(prefix) \(index)") == ["\(prefix) \(index)"])
        }
        #expect(home.leftovers().isEmpty, "\(home.leftovers())")
    }

    @Test("sync --watch with kind mealie: a recipe is sent at start, an edit made while watching reaches Mealie; Ctrl-C ends it")
    func watch() async throws {
        let session = try await MealieSession.shared()
        let home = try MealieHome(url: session.instance.url, token: session.instance.token)
        let title = Self.title("Watched soup")
        let uuid = try Self.newRecipe(title, in: home, image: false)
        let watcher = try home.start(["sync", "--watch", "--plain"])
        func mealieDescription() async throws -> String? { try await session.recipe(uuid)?["description"] as? String }
        var sent = false
        for _ in 0..<600 where !sent {
            sent = try await session.recipe(uuid) != nil
            if !sent { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(sent, "the watcher did not send the recipe")
        #expect(try home.run(["description", "1", "Edited while watching."]).status == 0)
        var edited = false
        for _ in 0..<600 where !edited {
            edited = try await mealieDescription() == "Edited while watching."
            if !edited { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(edited, "the edit did not reach Mealie")
        kill(watcher.process.processIdentifier, SIGINT)
        let ended = watcher.wait()
        #expect(ended.status == 0 || ended.status == 130, "\(ended)")
        #expect(ended.stdout.contains("watch: stopped"), "\(ended)")
        #expect(try await session.count(title) == 1)
    }

    @Test("A URL that is not a Mealie's and a refused token: one line each, exit 1 and 77, nothing changed")
    func setUpMistakes() async throws {
        let session = try await MealieSession.shared()
        let wrongPath = try MealieHome(url: session.instance.url + "/recipes", token: session.instance.token)
        _ = try Self.newRecipe(Self.title("Nowhere"), in: wrongPath, image: false)
        let notAMealie = try wrongPath.run(["sync"])
        #expect(notAMealie.status == 1, "\(notAMealie)")
        #expect(notAMealie.stdout.contains("sync: stopped: server.url \(session.instance.url)/recipes answers, but not as a Mealie 2.x does"),
                "\(notAMealie)")
        #expect(try wrongPath.status().first?["state"] as? String == "pending")

        let refused = try MealieHome(url: session.instance.url, token: "not-a-token-of-this-mealie")
        _ = try Self.newRecipe(Self.title("Refused"), in: refused, image: false)
        let run = try refused.run(["sync"])
        #expect(run.status == 77, "\(run)")
        #expect(run.stdout.contains("stopped: the server refused the credentials"), "\(run)")
        #expect(!run.stdout.contains("not-a-token-of-this-mealie") && !run.stderr.contains("not-a-token-of-this-mealie"), "\(run)")
    }
}
