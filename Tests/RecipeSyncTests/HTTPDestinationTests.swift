import Foundation
import RecipeModels
import RecipeStore
import RecipesTestSupport
import Testing
import Transport
@testable import RecipeSync

/// `HTTPDestination`, the contract server as a destination, against the in-process reference server: each operation
/// answers as the protocol says, a stale write is an answer (not a failure), images are named on the destination's own
/// origin, and nothing it does writes to the store.
@Suite("HTTPDestination answers the destination's operations from the contract server, and writes nothing here")
struct HTTPDestinationTests {
    /// The destination for `server` under the base URL `baseURL`.
    static func destination(_ home: ClientHome, _ server: SyncServer, baseURL: String) throws -> HTTPDestination {
        let api = try #require(ServerAPI(baseURL: baseURL))
        let settings = home.settings(server)
        return HTTPDestination(
            api: api, client: try HTTPClient(configuration: HTTPClientConfiguration()),
            reachability: settings.reachability, settings: settings)
    }

    @Test("missing images, own image names, reads, a stale write and a stale delete; the store and outbox untouched")
    func operations() async throws {
        try await withSyncServer { server in
            let home = try ClientHome()
            let recipe = try home.makeRecipe("soup", image: pngBytes(size: 1024, seed: 3))
            #expect(try await home.sync(server).verdict == .complete)
            let synced = try home.recipe(recipe.id)
            let sha = try #require(synced.image?.sha256)
            #expect(synced.sync.remoteImageURL == "\(server.baseURL)/v1/images/\(sha)")
            // The same server under another name, as another device of the household may name it.
            let otherName = server.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let destination = try Self.destination(home, server, baseURL: otherName)

            let absent = String(repeating: "ab", count: 32)
            #expect(try await destination.missingImages([sha, absent], of: recipe.uuid) == [absent])
            #expect(destination.imageName(sha256: sha, of: recipe.uuid) == "\(otherName)/v1/images/\(sha)")

            guard case .live(let version, let fields) = try await destination.read(recipe.uuid) else {
                Issue.record("the server's copy was not read")
                return
            }
            #expect(version == 1 && fields.title == "soup")
            #expect(try await destination.read(UUID()) == .absent)

            // A write based on version 1 names the image on its own origin, whatever URL the recipe recorded.
            try home.store.apply(.title("Tomato soup"), to: recipe.id)
            let edited = try home.recipe(recipe.id)
            let prepared = try destination.prepareWrite(edited, image: synced.sync.remoteImageURL, base: 1)
            #expect(prepared.version == 2 && prepared.base == 1)
            let document = try #require(try JSONSerialization.jsonObject(with: prepared.document) as? [String: Any])
            #expect(document["image"] as? String == "\(otherName)/v1/images/\(sha)")

            // Another device writes version 2 first: the write is answered stale, without the copy (a 412 has none).
            let theirs = try JSONSerialization.data(withJSONObject: [
                "@context": "https://schema.org", "@type": "Recipe", "identifier": recipe.uuid.lowercasedString,
                "version": 2, "name": "soup", "description": "from the tablet", "image": "\(server.baseURL)/v1/images/\(sha)",
            ])
            let put = try await server.send(HTTPRequest(
                method: .put, url: "\(server.baseURL)/v1/recipes/\(recipe.uuid.lowercasedString)",
                headers: ["If-Match": "\"1\""], body: .data(theirs, contentType: "application/json")))
            #expect(put.status == 200)
            #expect(try await destination.write(prepared) == .stale(copy: nil))
            #expect(try await destination.delete(recipe.uuid, base: 1) == .stale)

            // Nothing of it reached the store or the outbox: the draft is as the edit left it.
            let after = try home.recipe(recipe.id)
            #expect(after.sync == edited.sync && after.title == "Tomato soup")
            #expect(home.outboxFiles.isEmpty)

            #expect(try await destination.delete(recipe.uuid, base: 2) == .deleted)
            #expect(try await destination.read(recipe.uuid) == .deleted(version: 3))
            // A write over the deletion is answered gone, with the tombstone's version: the copy, without a read.
            let reads = server.requests().filter { $0.method == "GET" }.count
            #expect(try await destination.write(prepared) == .gone(version: 3))
            #expect(server.requests().filter { $0.method == "GET" }.count == reads)
            // A write the server refuses for this recipe (a version it would not make) is an answer too.
            let refusedWrite = PreparedWrite(uuid: recipe.uuid, base: 3, version: 9, document: prepared.document)
            guard case .refused(let words) = try await destination.write(refusedWrite) else {
                Issue.record("a 422 was not a refusal")
                return
            }
            #expect(words.contains("422"), "\(words)")
            #expect(try await destination.delete(recipe.uuid, base: 1) == .deleted, "already deleted: done")
        }
    }
}
