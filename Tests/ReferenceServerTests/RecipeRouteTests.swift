import Foundation
import Testing
import ReferenceServer

@Suite("Recipes over a real socket")
struct RecipeRouteTests {
    let json = ["Content-Type": "application/json"]

    @Test("health answers 200 {\"status\":\"ok\",\"server\":<id>}")
    func health() async throws {
        try await withServer { (server: TestServer) async throws in
            let answer = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health")
            #expect(answer.status == 200)
            #expect(answer.json["status"] as? String == "ok")
            let serverID = try #require(answer.json["server"] as? String)
            #expect(UUID(uuidString: serverID) != nil)
        }
    }

    @Test("PUT with If-None-Match creates version 1 (201), If-Match of it makes 2 (200), a stale If-Match is 412; each answer carries the ETag")
    func versions() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString
            let path = "/v1/recipes/\(id)"
            let created = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path, headers: Fixture.asNew, body: Fixture.recipe(id, version: 1))
            #expect(created.status == 201)
            #expect(created.json["identifier"] as? String == id && created.json["version"] as? Int == 1)
            #expect(created.header("etag") == "\"1\"")
            let updated = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path, headers: Fixture.basedOn(1),
                                                       body: Fixture.recipe(id, version: 2, name: "Better soup"))
            #expect(updated.status == 200 && updated.header("etag") == "\"2\"")
            let stale = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path, headers: Fixture.basedOn(1),
                                                     body: Fixture.recipe(id, version: 2, name: "Other soup"))
            #expect(stale.status == 412)
            #expect(stale.json["error"] as? String == "stale" && stale.json["version"] as? Int == 2 && stale.json["deleted"] as? Bool == false)
            #expect(stale.header("etag") == "\"2\"")
            let get = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
            #expect(get.status == 200 && get.body == Fixture.recipe(id, version: 2, name: "Better soup"))
            #expect(get.header("etag") == "\"2\"")
            let list = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes")
            let items = try #require(list.json["recipes"] as? [[String: Any]])
            #expect(items.count == 1 && items[0]["version"] as? Int == 2 && items[0]["name"] as? String == "Better soup")
        }
    }

    @Test("a write without If-Match or If-None-Match is 428 and stores nothing; a malformed If-Match is 400")
    func preconditionRequired() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString
            let path = "/v1/recipes/\(id)"
            let put = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path, headers: json, body: Fixture.recipe(id, version: 1))
            #expect(put.status == 428)
            #expect(put.json["error"] as? String == "precondition-required")
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: path).status == 404)
            let malformed = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path, headers: ["Content-Type": "application/json", "If-Match": "*"],
                                                         body: Fixture.recipe(id, version: 1))
            #expect(malformed.status == 400)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "DELETE", path: path).status == 428)
        }
    }

    @Test("a recipe body cut short is 400 incomplete-body, logged as 400, and nothing is stored")
    func cutBody() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString
            let document = Fixture.recipe(id, version: 1)
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)", headers: Fixture.asNew,
                                                      body: document.prefix(10), declaredLength: document.count, closeAfterSending: true)
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "incomplete-body")
            let entry = try #require(try await server.logEntries(atLeast: 1).first)
            #expect(entry["status"] as? Int == 400 && entry["bodyComplete"] as? Bool == false)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(id)").status == 404)
        }
    }

    @Test("DELETE with If-Match keeps a tombstone at base + 1 (204), 204 again when already deleted; GET then answers 410 with the version")
    func delete() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString
            let path = "/v1/recipes/\(id)"
            #expect(await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path, headers: Fixture.asNew, body: Fixture.recipe(id, version: 1)).status == 201)
            let deleted = await RawHTTPClient.exchange(port: server.port, method: "DELETE", path: path, headers: ["If-Match": "\"1\""])
            #expect(deleted.status == 204 && deleted.header("etag") == "\"2\"")
            #expect(await RawHTTPClient.exchange(port: server.port, method: "DELETE", path: path, headers: ["If-Match": "\"1\""]).status == 204)
            let gone = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
            #expect(gone.status == 410)
            #expect(gone.json["error"] as? String == "deleted" && gone.json["version"] as? Int == 2)
            #expect(gone.header("etag") == "\"2\"")
        }
    }

    @Test("a recipe whose image is not on the server is 422; once the image is uploaded it is accepted")
    func imageMustExist() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString
            let image = Fixture.image()
            let sha = Fixture.sha256(image)
            let url = "http://127.0.0.1:\(server.port)/v1/images/\(sha)"
            let refused = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)", headers: Fixture.asNew,
                                                       body: Fixture.recipe(id, version: 1, image: url))
            #expect(refused.status == 422)
            #expect((refused.json["message"] as? String)?.contains("upload the image first") == true)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                 headers: ["Content-Type": "image/webp"], body: image).status == 201)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)", headers: Fixture.asNew,
                                                 body: Fixture.recipe(id, version: 1, image: url)).status == 201)
        }
    }

    @Test("a recipe naming an image this server has, at a URL elsewhere (another port), is 422; its own URL is taken")
    func imageURLMustBeOwn() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString
            let image = Fixture.image()
            let sha = Fixture.sha256(image)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                 headers: ["Content-Type": "image/webp"], body: image).status == 201)
            let elsewhere = "http://127.0.0.1:\(server.port + 1)/v1/images/\(sha)"
            let refused = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)", headers: Fixture.asNew,
                                                       body: Fixture.recipe(id, version: 1, image: elsewhere))
            #expect(refused.status == 422)
            #expect((refused.json["message"] as? String)?.contains("must be one of this server's image URLs") == true,
                    "\(refused.json)")
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(id)").status == 404)
            let own = "http://127.0.0.1:\(server.port)/v1/images/\(sha)"
            #expect(await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)", headers: Fixture.asNew,
                                                 body: Fixture.recipe(id, version: 1, image: own)).status == 201)
        }
    }

    @Test("an invalid recipe is 422 with the contract's error body, and nothing is stored")
    func invalid() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)", headers: Fixture.asNew,
                                                      body: Fixture.recipe(UUID().uuidString, version: 1))
            #expect(answer.status == 422)
            #expect(answer.json["error"] as? String == "invalid")
            #expect(answer.json["message"] is String)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(id)").status == 404)
        }
    }

    @Test("with --token, requests without or with a wrong token get 401, the right one passes, health stays open, and the token is never echoed")
    func token() async throws {
        let token = "s3cret-token-value"
        try await withServer({ $0.token = token }) { (server: TestServer) async throws in
            let id = UUID().uuidString
            let path = "/v1/recipes/\(id)"
            let missing = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path, headers: Fixture.asNew, body: Fixture.recipe(id, version: 1))
            #expect(missing.status == 401)
            #expect(missing.header("www-authenticate")?.hasPrefix("Bearer") == true)
            let wrong = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path, headers: ["Authorization": "Bearer \(token)x"])
            #expect(wrong.status == 401)
            #expect(!String(decoding: wrong.body, as: UTF8.self).contains(token))
            let right = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path,
                                                     headers: Fixture.asNew.merging(["Authorization": "Bearer \(token)"]) { a, _ in a },
                                                     body: Fixture.recipe(id, version: 1))
            #expect(right.status == 201)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health").status == 200)
            let log = try String(contentsOfFile: server.logPath, encoding: .utf8)
            #expect(!log.contains(token))
        }
    }
}
