import Foundation
import Testing
import ReferenceServer

/// `images-missing` and `recipes-batch` over a real socket, and a server with the optional requests turned off.
@Suite("Optional requests over a real socket", .serialized)
struct OptionalRequestTests {
    private static let json = ["Content-Type": "application/json"]

    private func putImage(_ server: TestServer, _ image: Data) async -> String {
        let sha = Fixture.sha256(image)
        let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                  headers: ["Content-Type": "image/png"], body: image)
        #expect(answer.status == 201)
        return sha
    }

    private func batch(_ server: TestServer, _ writes: [[String: Any]]) async throws -> RawOutcome {
        let body = try JSONSerialization.data(withJSONObject: ["writes": writes], options: [.sortedKeys])
        return await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/recipes/batch", headers: Self.json, body: body)
    }

    private func results(_ answer: RawOutcome) -> [[String: Any]] { answer.json["results"] as? [[String: Any]] ?? [] }

    private func document(_ identifier: String, version: Int, name: String = "Tomato soup", image: String? = nil) -> Any {
        try! JSONSerialization.jsonObject(with: Fixture.recipe(identifier, version: version, name: name, image: image))
    }

    @Test("GET /v1/health lists the three optional requests by name; with --features none it lists none and they are 404")
    func healthAndFeaturesOff() async throws {
        try await withServer { (server: TestServer) async throws in
            let health = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health")
            #expect(health.json["features"] as? [String] == ["images-missing", "recipes-batch", "resumable-images"])
        }
        try await withServer({ $0.features = [] }) { (server: TestServer) async throws in
            let health = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health")
            #expect(health.status == 200 && health.json["features"] == nil && health.json["status"] as? String == "ok")
            let missing = await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/images/missing", headers: Self.json,
                                                       body: Data(#"{"sha256":[]}"#.utf8))
            #expect(missing.status == 404)
            #expect(try await batch(server, []).status == 404)
            let patch = await RawHTTPClient.exchange(port: server.port, method: "PATCH", path: "/v1/images/\(Fixture.sha256(Fixture.image()))",
                                                     headers: ["Content-Type": "application/partial-upload", "Upload-Offset": "0",
                                                               "Upload-Length": "4", "Upload-Complete": "?1"], body: Data("abcd".utf8))
            #expect(patch.status == 404)
        }
        try await withServer({ $0.features = [.recipesBatch] }) { (server: TestServer) async throws in
            let health = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/health")
            #expect(health.json["features"] as? [String] == ["recipes-batch"])
        }
    }

    @Test("POST /v1/images/missing answers the names the server has no image of, in the order asked, duplicates as asked")
    func missing() async throws {
        try await withServer { (server: TestServer) async throws in
            let stored = await putImage(server, Fixture.image(1000, seed: 1))
            let other = await putImage(server, Fixture.image(1000, seed: 2))
            let absent = (3...5).map { Fixture.sha256(Fixture.image(1000, seed: UInt8($0))) }
            let asked = [absent[2], stored, absent[0], other, absent[1], absent[0]]
            let answer = await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/images/missing", headers: Self.json,
                                                      body: try JSONSerialization.data(withJSONObject: ["sha256": asked]))
            #expect(answer.status == 200)
            #expect(answer.json["missing"] as? [String] == [absent[2], absent[0], absent[1], absent[0]])
        }
    }

    @Test("POST /v1/images/missing refuses a malformed question with 400 (not JSON, a bad name, over 1000 names) and a non-JSON type with 415")
    func missingRefused() async throws {
        try await withServer { (server: TestServer) async throws in
            let sha = Fixture.sha256(Fixture.image())
            for body in ["nope", #"{"sha":[]}"#, #"{"sha256":"\#(sha)"}"#, #"{"sha256":["\#(sha.uppercased())"]}"#, #"{"sha256":[1]}"#,
                         #"{"sha256":[\#(Array(repeating: "\"\(sha)\"", count: 1001).joined(separator: ","))]}"#] {
                let answer = await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/images/missing", headers: Self.json,
                                                          body: Data(body.utf8))
                #expect(answer.status == 400, "\(body.prefix(80))")
                #expect(answer.json["error"] as? String == "bad-request")
            }
            let thousand = #"{"sha256":[\#(Array(repeating: "\"\(sha)\"", count: 1000).joined(separator: ","))]}"#
            let full = await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/images/missing", headers: Self.json,
                                                    body: Data(thousand.utf8))
            #expect((full.json["missing"] as? [String])?.count == 1000)
            let text = await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/images/missing",
                                                    headers: ["Content-Type": "text/plain"], body: Data("{}".utf8))
            #expect(text.status == 415)
        }
    }

    @Test("a batch answers each write as its own request would: 201, 200, 204, 412, 422 and 428 in order, with versions and tombstones")
    func batchStatuses() async throws {
        try await withServer { (server: TestServer) async throws in
            let (a, b, c, d, e, f) = (UUID().uuidString, UUID().uuidString, UUID().uuidString, UUID().uuidString, UUID().uuidString, UUID().uuidString)
            for id in [b, c, d] {
                let put = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)", headers: Fixture.asNew,
                                                       body: Fixture.recipe(id, version: 1))
                #expect(put.status == 201)
            }
            let unknownImage = "http://127.0.0.1:\(server.port)/v1/images/\(Fixture.sha256(Fixture.image(seed: 9)))"
            let answer = try await batch(server, [
                ["identifier": a, "ifNoneMatch": "*", "document": document(a, version: 1)],
                ["identifier": b, "ifMatch": "\"1\"", "document": document(b, version: 2, name: "Better soup")],
                ["identifier": c, "ifMatch": "\"1\"", "delete": true],
                ["identifier": d, "ifNoneMatch": "*", "document": document(d, version: 1, name: "Other soup")],
                ["identifier": e, "ifNoneMatch": "*", "document": document(e, version: 1, image: unknownImage)],
                ["identifier": f, "document": document(f, version: 1)],
            ])
            #expect(answer.status == 200)
            let results = results(answer)
            #expect(results.map { $0["identifier"] as? String } == [a, b, c, d, e, f])
            #expect(results.map { $0["status"] as? Int } == [201, 200, 204, 412, 422, 428])
            #expect(results.map { $0["version"] as? Int } == [1, 2, 2, 1, nil, nil])
            #expect(results.map { $0["deleted"] as? Bool } == [false, false, true, false, nil, nil])
            #expect(results.map { $0["error"] as? String } == [nil, nil, nil, "stale", "invalid", "precondition-required"])
            try #require(results.count == 6)
            #expect((results[4]["message"] as? String)?.contains("upload the image first") == true)
            // Each write is stored as its own request would store it: the documents, the tombstone, the feed.
            let gotB = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(b)")
            #expect(gotB.status == 200 && gotB.header("etag") == "\"2\"" && gotB.json["name"] as? String == "Better soup")
            let gotC = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(c)")
            #expect(gotC.status == 410 && gotC.json["version"] as? Int == 2)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(e)").status == 404)
            let feed = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/changes?since=3")
            let changes = feed.json["changes"] as? [[String: Any]] ?? []
            #expect(changes.map { $0["uuid"] as? String } == [a, b, c])
            #expect(changes.map { $0["seq"] as? Int } == [4, 5, 6])
            #expect(changes.map { $0["deleted"] as? Bool } == [false, false, true])
        }
    }

    @Test("a batch's documents are stored byte for byte as they stand in the body, as a PUT stores its body")
    func batchBytes() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString
            let document = #"{ "version" : 1, "@type":"Recipe","identifier":"\#(id)", "name":"Soup \u00e9", "x-unknown":{"a":[1.50,2e3]} }"#
            let body = #"{"writes":[{"document":\#(document),"ifNoneMatch":"*","identifier":"\#(id.lowercased())"}]}"#
            let answer = await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/recipes/batch", headers: Self.json,
                                                      body: Data(body.utf8))
            #expect(results(answer).first?["status"] as? Int == 201)
            let stored = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(id)")
            #expect(stored.body == Data(document.utf8))
        }
    }

    @Test("a batch whose answer was lost, sent again, is answered as a retry (200, 204) and stores nothing twice")
    func batchLostAnswer() async throws {
        try await withServer({ $0.faults = [try FaultRule.parse("POST /v1/recipes/batch: lost-ack first=1")] }) { (server: TestServer) async throws in
            let (a, b) = (UUID().uuidString, UUID().uuidString)
            let put = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(b)", headers: Fixture.asNew,
                                                   body: Fixture.recipe(b, version: 1))
            #expect(put.status == 201)
            let writes: [[String: Any]] = [["identifier": a, "ifNoneMatch": "*", "document": document(a, version: 1)],
                                           ["identifier": b, "ifMatch": "\"1\"", "delete": true]]
            let lost = try await batch(server, writes)
            #expect(lost == .closedWithoutAnswer || lost == .reset)
            let retry = try await batch(server, writes)
            #expect(retry.status == 200)
            #expect(results(retry).map { $0["status"] as? Int } == [200, 204])
            #expect(results(retry).map { $0["version"] as? Int } == [1, 2])
            let feed = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/changes")
            let changes = feed.json["changes"] as? [[String: Any]] ?? []
            #expect(changes.map { $0["uuid"] as? String } == [a, b])
            #expect(changes.map { $0["version"] as? Int } == [1, 2])
            #expect(feed.json["next"] as? Int == 3)
        }
    }

    @Test("a batch partly stale applies the writes that hold and answers 412 with the server's version for the others")
    func batchPartlyStale() async throws {
        try await withServer { (server: TestServer) async throws in
            let (a, b, c) = (UUID().uuidString, UUID().uuidString, UUID().uuidString)
            for (id, versions) in [(a, 2), (b, 1)] {
                for version in 1...versions {
                    let put = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/recipes/\(id)",
                                                           headers: version == 1 ? Fixture.asNew : Fixture.basedOn(version - 1),
                                                           body: Fixture.recipe(id, version: version, name: "v\(version)"))
                    #expect(put.status == (version == 1 ? 201 : 200))
                }
            }
            let delete = await RawHTTPClient.exchange(port: server.port, method: "DELETE", path: "/v1/recipes/\(b)", headers: ["If-Match": "\"1\""])
            #expect(delete.status == 204)
            let answer = try await batch(server, [
                ["identifier": a, "ifMatch": "\"1\"", "document": document(a, version: 2, name: "mine")],
                ["identifier": c, "ifNoneMatch": "*", "document": document(c, version: 1)],
                ["identifier": b, "ifNoneMatch": "*", "document": document(b, version: 1)],
                ["identifier": a, "ifMatch": "\"2\"", "document": document(a, version: 3, name: "merged")],
            ])
            let results = results(answer)
            #expect(results.map { $0["status"] as? Int } == [412, 201, 412, 200])
            #expect(results.map { $0["version"] as? Int } == [2, 1, 2, 3])
            #expect(results.map { $0["deleted"] as? Bool } == [false, false, true, false])
            let gotA = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(a)")
            #expect(gotA.json["name"] as? String == "merged")
        }
    }

    @Test("a malformed batch is a 400 and applies none of its writes; a non-JSON type is 415")
    func batchMalformed() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString
            let body = #"{"writes":[{"identifier":"\#(id)","ifNoneMatch":"*","document":\#(String(decoding: Fixture.recipe(id, version: 1), as: UTF8.self))},{"identifier":"x","delete":true}]}"#
            let answer = await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/recipes/batch", headers: Self.json,
                                                      body: Data(body.utf8))
            #expect(answer.status == 400)
            #expect((answer.json["message"] as? String)?.contains("Write 2") == true)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(id)").status == 404)
            let text = await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/recipes/batch",
                                                    headers: ["Content-Type": "text/plain"], body: Data(body.utf8))
            #expect(text.status == 415)
        }
    }
}
