import Crypto
import Foundation
import HTTPTestSupport
import Locking
import RecipeModels
import RecipeStore
import RecipesTestSupport
import ReferenceServer
import Testing
import Transport
@testable import RecipeSync

/// Resumable image uploads: the decisions from tables, and against the reference server with its `reset after=SIZE`
/// fault (which keeps what it read as the partial): the retry sends only the rest, a reset mid-`PATCH` resumes again,
/// a restarted server's partial is resumed by a new process, and a server without the feature gets the whole `PUT`.
@Suite("An image upload cut off resumes from the offset the server kept, only where the server offers it")
struct ResumableUploadTests {
    @Test("the decisions: when to ask for the offset, and what follows each HEAD and PATCH answer")
    func decisions() {
        let size: Int64 = 10_000_000
        #expect(!ResumableUpload.asksOffset(size: 32 * 1024, cutBefore: false), "a small image is sent whole")
        #expect(ResumableUpload.asksOffset(size: 32 * 1024, cutBefore: true), "after a cut in this run, any image asks")
        #expect(ResumableUpload.asksOffset(size: size, cutBefore: false), "a large image asks first")

        let heads: [(status: Int, confirms: Bool, offset: Int64?, expected: ResumableUpload.Next)] = [
            (200, true, nil, .stored), (404, false, 4_000_000, .patch(from: 4_000_000)), (404, false, nil, .put),
            (404, false, 0, .put), (404, false, size + 1, .put), (404, false, size, .patch(from: size)),
            (200, false, nil, .failed), (503, false, nil, .failed),
        ]
        for row in heads {
            #expect(ResumableUpload.afterHead(status: row.status, confirms: row.confirms, offset: row.offset, size: size)
                    == row.expected, "HEAD \(row.status) offset \(row.offset.map(String.init) ?? "none")")
        }
        let patches: [(status: Int, offset: Int64?, mismatches: Int, expected: ResumableUpload.Next)] = [
            (201, nil, 0, .stored), (200, nil, 0, .stored),
            (409, 6_000_000, 1, .patch(from: 6_000_000)), (409, 6_000_000, 3, .put), (409, nil, 1, .put),
            (409, 0, 1, .put), (409, size + 5, 1, .put),
            (404, nil, 0, .put), (422, nil, 0, .put), (503, nil, 0, .failed), (400, nil, 0, .failed),
        ]
        for row in patches {
            #expect(ResumableUpload.afterPatch(status: row.status, offset: row.offset, size: size, mismatches: row.mismatches)
                    == row.expected, "PATCH \(row.status) offset \(row.offset.map(String.init) ?? "none") ×\(row.mismatches)")
        }
    }

    static let imageSize = 3 << 20

    /// The server's image file of `sha`, when it stored one.
    static func storedBytes(_ server: SyncServer, _ sha: String) -> Data? {
        server.storedImages().first { $0.hasPrefix(sha) }.flatMap { fileBytes(server.dataDirectory + "/images/" + $0) }
    }

    static func partials(_ server: SyncServer) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads")) ?? [])
            .filter { !$0.hasPrefix(".") }
    }

    @Test("a PUT reset after 1 MiB: the retry asks the offset and PATCHes only the rest; the image arrives whole, no partial left")
    func resumesAfterReset() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: reset after=1MiB first=1"], features: ServerFeature.all) { server in
            let home = try ClientHome()
            let bytes = pngBytes(size: Self.imageSize, seed: 9)
            let recipe = try home.makeRecipe("bread", image: bytes)
            #expect(try await home.sync(server).verdict == .complete)
            let sha = try #require(try home.recipe(recipe.id).image?.sha256)
            let requests = server.requests().filter { $0.path == "/v1/images/\(sha)" }
            let patches = requests.filter { $0.method == "PATCH" }
            #expect(requests.filter { $0.method == "PUT" }.count == 1,
                    "the whole image was sent once: \(requests.map { "\($0.method) \($0.status ?? 0) \($0.bytesReceived)" })")
            #expect(patches.count == 1 && patches[0].status == 201)
            let resent = patches.map(\.bytesReceived).reduce(0, +)
            #expect(resent <= Self.imageSize - (1 << 20) + 64 * 1024, "only the rest went again: \(resent) bytes")
            #expect(Self.storedBytes(server, sha) == Data(bytes))
            #expect(Self.partials(server).isEmpty)
        }
    }

    @Test("a 409 from the real server: a PATCH from a stale offset is refused with the server's offset, the next goes from there")
    func offsetMismatch() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: reset after=1MiB first=1"], features: ServerFeature.all) { server in
            // The HEAD after the cut is answered through a proxy that tells of 256 KiB less than the server kept: the
            // client's PATCH from there meets the server's own 409.
            let proxy = try LoopbackFaultProxy(upstreamURL: server.baseURL)
            defer { proxy.stop() }
            let heads = Locked(0)
            proxy.add(.lowerUploadOffset(by: 256 * 1024)) { request in
                guard request.method == "HEAD", request.path.hasPrefix("/v1/images/") else { return false }
                return heads.withLock { $0 += 1; return $0 } == 2
            }
            let home = try ClientHome()
            let bytes = pngBytes(size: Self.imageSize, seed: 23)
            let recipe = try home.makeRecipe("bread", image: bytes)
            var settings = home.settings(server)
            settings.api = ServerAPI(baseURL: proxy.baseURL)
            let summary = try await SyncRun(
                store: home.store, settings: settings, options: SyncOptions(jobs: 4, direction: .pushOnly),
                emit: EventRecorder().emit
            ).run()
            #expect(summary.verdict == .complete)
            let sha = try #require(try home.recipe(recipe.id).image?.sha256)
            let patches = server.requests().filter { $0.path == "/v1/images/\(sha)" && $0.method == "PATCH" }
            #expect(patches.map(\.status) == [409, 201], "\(patches.map { "\($0.status ?? 0) \($0.bytesReceived)" })")
            #expect(patches.last.map { $0.bytesReceived <= Self.imageSize - (1 << 20) + 64 * 1024 } == true,
                    "after the 409 only the rest went: \(patches.last?.bytesReceived ?? 0) bytes")
            #expect(Self.storedBytes(server, sha) == Data(bytes))
            #expect(Self.partials(server).isEmpty)
        }
    }

    @Test("a 20 MiB image cut at 80%: the retry sends at most 25% of its bytes again (issue 28's target)")
    func twentyMiBCutAtEightyPercent() async throws {
        let size = 20 << 20
        try await withSyncServer(faults: ["PUT /v1/images/*: reset after=16MiB first=1"], features: ServerFeature.all) { server in
            let home = try ClientHome()
            let bytes = pngBytes(size: size, seed: 17)
            let recipe = try home.makeRecipe("bread", image: bytes)
            #expect(try await home.sync(server).verdict == .complete)
            let sha = try #require(try home.recipe(recipe.id).image?.sha256)
            let requests = server.requests().filter { $0.path == "/v1/images/\(sha)" }
            let resent = requests.filter { $0.method == "PATCH" }.map(\.bytesReceived).reduce(0, +)
                + requests.filter { $0.method == "PUT" }.dropFirst().map(\.bytesReceived).reduce(0, +)
            #expect(Double(resent) <= 0.25 * Double(size), "sent again: \(resent) of \(size) bytes")
            #expect(Self.storedBytes(server, sha) == Data(bytes))
        }
    }

    @Test("a reset mid-PATCH keeps what that PATCH sent: the next PATCH starts from the new offset")
    func resetMidPatch() async throws {
        let faults = ["PUT /v1/images/*: reset after=1MiB first=1", "PATCH /v1/images/*: reset after=1MiB first=1"]
        try await withSyncServer(faults: faults, features: ServerFeature.all) { server in
            let home = try ClientHome()
            let bytes = pngBytes(size: Self.imageSize, seed: 11)
            let recipe = try home.makeRecipe("bread", image: bytes)
            #expect(try await home.sync(server).verdict == .complete)
            let sha = try #require(try home.recipe(recipe.id).image?.sha256)
            let patches = server.requests().filter { $0.method == "PATCH" && $0.path == "/v1/images/\(sha)" }
            #expect(patches.count == 2 && patches.last?.status == 201, "\(patches.map(\.status))")
            let resent = patches.map(\.bytesReceived).reduce(0, +)
            #expect(resent <= Self.imageSize - (1 << 20) + 128 * 1024, "each byte after the first cut went about once: \(resent)")
            #expect(Self.storedBytes(server, sha) == Data(bytes))
            #expect(Self.partials(server).isEmpty)
        }
    }

    @Test("a server restarted with the partial on disk: a new run (which knows of no cut) resumes it")
    func restartedServer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resume-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let home = try ClientHome()
        let bytes = pngBytes(size: Self.imageSize, seed: 13)
        let recipe = try home.makeRecipe("bread", image: bytes)
        let image = try #require(try home.recipe(recipe.id).image)
        let sha = image.sha256
        let path = try #require(home.store.localImagePath(image))
        try await withSyncServer(faults: ["PUT /v1/images/*: reset after=1MiB"], features: ServerFeature.all, directory: directory) { server in
            // Another process's upload, cut: the server keeps the first MiB.
            _ = try? await server.send(HTTPRequest(
                method: .put, url: server.api.imageURL(sha256: sha), body: .file(path: path, contentType: "image/png")))
            #expect(Self.partials(server) == [sha])
        }
        try await withSyncServer(features: ServerFeature.all, directory: directory) { (server: SyncServer) async throws in
            #expect(try await home.sync(server).verdict == .complete)
            let requests = server.requests().filter { $0.path == "/v1/images/\(sha)" && $0.status != nil }
            #expect(requests.filter { $0.method == "PUT" }.isEmpty, "nothing sent whole (the cut PUT was the other process's)")
            #expect(requests.filter { $0.method == "PATCH" }.map(\.status) == [201])
            #expect(Self.storedBytes(server, sha) == Data(bytes))
            #expect(Self.partials(server).isEmpty)
        }
    }

    @Test("a server without resumable-images gets the whole PUT again after a cut, and never a PATCH")
    func withoutFeature() async throws {
        try await withSyncServer(faults: ["PUT /v1/images/*: reset after=1MiB first=1"], features: []) { server in
            let home = try ClientHome()
            let bytes = pngBytes(size: Self.imageSize, seed: 15)
            let recipe = try home.makeRecipe("bread", image: bytes)
            #expect(try await home.sync(server).verdict == .complete)
            let sha = try #require(try home.recipe(recipe.id).image?.sha256)
            let requests = server.requests().filter { $0.path == "/v1/images/\(sha)" }
            #expect(requests.filter { $0.method == "PUT" }.count == 2)
            #expect(requests.filter { $0.method == "PATCH" }.isEmpty)
            #expect(Self.storedBytes(server, sha) == Data(bytes))
        }
    }
}
