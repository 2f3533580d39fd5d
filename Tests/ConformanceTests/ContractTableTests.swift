import Foundation
import ReferenceServer
import Testing
import Transport

/// Every row of docs/http-api.md's requests, against a live recipes-server, through the real transport.
@Suite("HTTP contract conformance (section 3)")
struct ContractTableTests {
    @Test("GET /v1/health answers 200 {\"status\":\"ok\",\"server\":<id>}, the same id as the changes feed's")
    func health() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let response = try await server.send(.get, "/v1/health")
            #expect(response.status == 200)
            #expect(Sample.object(response)["status"] as? String == "ok")
            let id = try #require(Sample.object(response)["server"] as? String)
            #expect(!id.isEmpty)
            #expect(Sample.object(try await server.send(.get, "/v1/changes"))["server"] as? String == id)
        }
    }

    @Test("HEAD /v1/images/{sha256} answers 404 before the upload and 200 after; PUT streams a file: 201 stored, 200 already had it; GET answers the bytes with Content-Type, Content-Length and ETag, 404 for an unknown one")
    func imageRows() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let image = Sample.image(300_000)
            let sha = ImageDigest.sha256Hex(of: image)
            let path = try server.file(image)
            #expect(try await server.send(.head, "/v1/images/\(sha)").status == 404)
            let put = try await server.send(.put, "/v1/images/\(sha)", body: .file(path: path, contentType: "image/jpeg"))
            #expect(put.status == 201)
            let answer = Sample.object(put)
            #expect(answer["sha256"] as? String == sha)
            #expect(answer["bytes"] as? Int == image.count)
            #expect(answer["url"] as? String == server.url("/v1/images/\(sha)"))
            #expect(try await server.send(.head, "/v1/images/\(sha)").status == 200)
            let again = try await server.send(.put, "/v1/images/\(sha)", body: .file(path: path, contentType: "image/jpeg"))
            #expect(again.status == 200)
            let get = try await server.send(.get, "/v1/images/\(sha)")
            #expect(get.status == 200 && get.body == image)
            #expect(get.header("Content-Type") == "image/jpeg")
            #expect(get.header("Content-Length") == String(image.count))
            #expect(get.header("ETag") == "\"\(sha)\"")
            let unknown = ImageDigest.sha256Hex(of: Sample.image(seed: 3))
            #expect(try await server.send(.get, "/v1/images/\(unknown)").status == 404)
        }
    }

    @Test("PUT of an image whose body's SHA-256 differs from the path is 422, permanent, and nothing is stored")
    func wrongHash() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let image = Sample.image()
            let other = ImageDigest.sha256Hex(of: Sample.image(seed: 2))
            let outcome = await server.outcome(.put, "/v1/images/\(other)", body: .file(path: try server.file(image), contentType: "image/png"))
            guard case .permanent(let status, let message) = outcome else { Issue.record("got \(outcome)"); return }
            #expect(status == 422)
            #expect(message.contains("SHA-256"))
            #expect(try await server.send(.head, "/v1/images/\(other)").status == 404)
            #expect(try server.storedImages().isEmpty)
        }
    }

    @Test("PUT of an image over the size limit is 413 and permanent")
    func tooLarge() async throws {
        try await withConformanceServer(maxImageBytes: 10_000) { (server: ConformanceServer) async throws in
            let image = Sample.image(10_001)
            let outcome = await server.outcome(.put, "/v1/images/\(ImageDigest.sha256Hex(of: image))",
                                               body: .file(path: try server.file(image), contentType: "image/gif"))
            guard case .permanent(let status, _) = outcome else { Issue.record("got \(outcome)"); return }
            #expect(status == 413)
            #expect(try server.storedImages().isEmpty)
        }
    }

    @Test("a body cut short by a reset mid-upload is a transient failure and stores nothing; the retry stores it")
    func cutByServer() async throws {
        try await withConformanceServer(faults: ["PUT /v1/images/*: reset after=64KiB first=1"]) { (server: ConformanceServer) async throws in
            let image = Sample.image(2_000_000)
            let sha = ImageDigest.sha256Hex(of: image)
            let path = try server.file(image)
            let outcome = await server.outcome(.put, "/v1/images/\(sha)", body: .file(path: path, contentType: "image/webp"))
            guard case .transient = outcome else { Issue.record("got \(outcome)"); return }
            #expect(try await server.send(.head, "/v1/images/\(sha)").status == 404)
            #expect(try server.storedImages().isEmpty)
            #expect(try await server.send(.put, "/v1/images/\(sha)", body: .file(path: path, contentType: "image/webp")).status == 201)
        }
    }

    @Test("a body cut short by the client cancelling mid-upload is .cancelled and stores nothing (the next upload gets 201, not 200)")
    func cutByClient() async throws {
        // The latency keeps the server from reading while the client fills the socket buffers, so the cancel lands mid-body.
        try await withConformanceServer(faults: ["PUT /v1/images/*: latency=300ms"]) { (server: ConformanceServer) async throws in
            var image = Data(repeating: 0xAB, count: 16 << 20)
            image.replaceSubrange(0..<16, with: Data(UUID().uuidString.utf8.prefix(16)))
            let sha = ImageDigest.sha256Hex(of: image)
            let path = try server.file(image)
            let client = server.client
            let url = server.url("/v1/images/\(sha)")
            let (started, startedContinuation) = AsyncStream<Void>.makeStream()
            let upload = Task { () -> TransferOutcome in
                do throws(TransportError) {
                    let response = try await client.send(HTTPRequest(method: .put, url: url, body: .file(path: path, contentType: "image/png"))) { progress in
                        if progress.sent > 0 { startedContinuation.yield() }
                    }
                    return TransferOutcome.classify(.success(response), now: Date())
                } catch {
                    return TransferOutcome.classify(.failure(error), now: Date())
                }
            }
            var iterator = started.makeAsyncIterator()
            _ = await iterator.next()
            upload.cancel()
            #expect(await upload.value == .cancelled)
            // The cancelled request's handler may still be in its latency sleep here, so the proof is the retry's
            // 201 (nothing was recorded), then, once the server has stopped and every handler has finished, a
            // single stored image and no partial file left behind.
            let retry = try await server.send(.put, "/v1/images/\(sha)", body: .file(path: path, contentType: "image/png"))
            #expect(retry.status == 201)
            await server.running.stop()
            #expect(try server.storedImages() == [sha])
            #expect(try server.partialFiles().isEmpty)
        }
    }

    @Test("PUT of a recipe whose image is unknown is 422 with the server's message; after the image chain it is accepted")
    func recipeImageChain() async throws {
        try await withConformanceServer { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            let image = Sample.image()
            let sha = ImageDigest.sha256Hex(of: image)
            let imageURL = server.url("/v1/images/\(sha)")
            let refused = try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1, image: imageURL))
            guard case .permanent(422, let message) = TransferOutcome.classify(.success(refused), now: Date()) else { Issue.record("got \(refused.status)"); return }
            #expect(message.contains("upload the image first"))
            let put = try await server.send(.put, "/v1/images/\(sha)", body: .file(path: try server.file(image), contentType: "image/png"))
            let url = try #require(Sample.object(put)["url"] as? String)
            #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1, image: url)).status == 201)
        }
    }

    @Test("with a server token: no token or a wrong one is 401 bad credentials (message without the token); the right one works")
    func credentials() async throws {
        let token = "conformance-token-42"
        try await withConformanceServer(serverToken: token) { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            let response = try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1))
            let outcome = TransferOutcome.classify(.success(response), now: Date())
            guard case .badCredentials(401, let message) = outcome else { Issue.record("got \(outcome)"); return }
            #expect(!message.contains(token))
        }
        try await withConformanceServer(serverToken: token, clientToken: token + "-wrong") { (server: ConformanceServer) async throws in
            let outcome = await server.outcome(.get, "/v1/recipes")
            guard case .badCredentials(401, let message) = outcome else { Issue.record("got \(outcome)"); return }
            #expect(!message.contains(token))
        }
        try await withConformanceServer(serverToken: token, clientToken: token) { (server: ConformanceServer) async throws in
            let id = UUID().uuidString
            #expect(try await server.putRecipe(id, base: nil, Sample.recipe(id, version: 1)).status == 201)
        }
    }
}
