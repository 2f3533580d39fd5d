import Foundation
import Testing
import ReferenceServer

@Suite("Images over a real socket")
struct ImageRouteTests {
    @Test("PUT stores a verified image (201, then 200), HEAD and GET read it back, and the url is built from Host")
    func putHeadGet() async throws {
        try await withServer { (server: TestServer) async throws in
            let image = Fixture.image(100_000)
            let sha = Fixture.sha256(image)
            let path = "/v1/images/\(sha)"
            #expect(await RawHTTPClient.exchange(port: server.port, method: "HEAD", path: path).status == 404)
            let put = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path,
                                                   headers: ["Content-Type": "image/png"], body: image)
            #expect(put.status == 201)
            #expect(put.json["sha256"] as? String == sha)
            #expect(put.json["bytes"] as? Int == image.count)
            #expect(put.json["url"] as? String == "http://127.0.0.1:\(server.port)\(path)")
            let again = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path,
                                                     headers: ["Content-Type": "image/png"], body: image)
            #expect(again.status == 200)
            let head = await RawHTTPClient.exchange(port: server.port, method: "HEAD", path: path)
            #expect(head.status == 200)
            #expect(head.header("content-length") == String(image.count))
            let get = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
            #expect(get.status == 200 && get.body == image)
            #expect(get.header("content-type") == "image/png")
            #expect(try server.storedImages() == [sha])
        }
    }

    @Test("Expect: 100-continue gets an interim 100 Continue at once, so curl-like clients do not wait to send the body")
    func expectContinue() async throws {
        try await withServer { (server: TestServer) async throws in
            let image = Fixture.image()
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(Fixture.sha256(image))",
                                                      headers: ["Content-Type": "image/png", "Expect": "100-continue"],
                                                      declaredLength: image.count, readTimeout: 30)
            #expect(answer.status == 100)
        }
    }

    @Test("a body whose SHA-256 differs from the path gets 422 and nothing is stored")
    func wrongHash() async throws {
        try await withServer { (server: TestServer) async throws in
            let image = Fixture.image()
            let wrong = Fixture.sha256(Fixture.image(seed: 9))
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(wrong)",
                                                      headers: ["Content-Type": "image/jpeg"], body: image)
            #expect(answer.status == 422)
            #expect(answer.json["error"] as? String == "sha256-mismatch")
            #expect(await RawHTTPClient.exchange(port: server.port, method: "HEAD", path: "/v1/images/\(wrong)").status == 404)
            #expect(try server.storedImages().isEmpty)
            #expect(try server.partialFiles().isEmpty)
        }
    }

    @Test("a body cut short stores nothing and the request log says it was incomplete")
    func cutBody() async throws {
        try await withServer { (server: TestServer) async throws in
            let image = Fixture.image(200_000)
            let sha = Fixture.sha256(image)
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                      headers: ["Content-Type": "image/png"], body: image.prefix(50_000),
                                                      declaredLength: image.count, closeAfterSending: true)
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "incomplete-body")
            let entry = try #require(try await server.logEntries(atLeast: 1).first)
            #expect(entry["status"] as? Int == 400)
            #expect(entry["bodyComplete"] as? Bool == false)
            #expect((entry["bytesReceived"] as? Int ?? 0) <= 50_000)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "HEAD", path: "/v1/images/\(sha)").status == 404)
            #expect(try server.storedImages().isEmpty)
            #expect(try server.partialFiles().isEmpty)
        }
    }

    @Test("an image over --max-image-bytes gets 413 before its body is read")
    func tooLarge() async throws {
        try await withServer({ $0.maxImageBytes = 1000 }) { (server: TestServer) async throws in
            let image = Fixture.image(1001)
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(Fixture.sha256(image))",
                                                      headers: ["Content-Type": "image/gif"], body: image)
            #expect(answer.status == 413)
            #expect(answer.json["error"] as? String == "too-large")
            #expect(try server.storedImages().isEmpty)
            let entry = try #require(try await server.logEntries(atLeast: 1).first)
            #expect(entry["status"] as? Int == 413)
            #expect(entry["bytesReceived"] as? Int == 0)
        }
    }

    @Test("Expect: 100-continue with a Content-Length over the limit gets the final 413 at once instead of 100, and nothing is stored")
    func expectContinueTooLarge() async throws {
        try await withServer { (server: TestServer) async throws in
            let sha = Fixture.sha256(Fixture.image())
            // Only the head is sent: a client waiting for 100 Continue before sending 500 MiB.
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                      headers: ["Content-Type": "image/png", "Expect": "100-continue"],
                                                      declaredLength: 500 << 20, readTimeout: 30)
            #expect(answer.status == 413)
            #expect(answer.json["error"] as? String == "too-large")
            #expect(answer.header("connection") == "close")
            let entry = try #require(try await server.logEntries(atLeast: 1).first)
            #expect(entry["status"] as? Int == 413 && entry["bytesReceived"] as? Int == 0)
            #expect(try server.storedImages().isEmpty)
            #expect(try server.partialFiles().isEmpty)
        }
    }

    @Test("Expect: 100-continue without the server's token gets the final 401 at once instead of 100")
    func expectContinueUnauthorized() async throws {
        try await withServer({ $0.token = "expect-token-7" }) { (server: TestServer) async throws in
            let image = Fixture.image()
            let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(Fixture.sha256(image))",
                                                      headers: ["Content-Type": "image/png", "Expect": "100-continue"],
                                                      declaredLength: image.count, readTimeout: 30)
            #expect(answer.status == 401)
            #expect(answer.json["error"] as? String == "unauthorized")
            #expect(try server.storedImages().isEmpty)
        }
    }

    @Test("the same bytes uploaded again with another Content-Type answer 200 and keep the first type (the bytes decide)")
    func sameBytesOtherType() async throws {
        try await withServer { (server: TestServer) async throws in
            let image = Fixture.image(5000)
            let path = "/v1/images/\(Fixture.sha256(image))"
            #expect(await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path,
                                                 headers: ["Content-Type": "image/png"], body: image).status == 201)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path,
                                                 headers: ["Content-Type": "image/jpeg"], body: image).status == 200)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "HEAD", path: path).header("content-type") == "image/png")
            let get = await RawHTTPClient.exchange(port: server.port, method: "GET", path: path)
            #expect(get.header("content-type") == "image/png" && get.body == image)
        }
    }

    @Test("with fsync on (the default), an image is flushed, renamed, its directory flushed, and stored")
    func synchronousWrites() async throws {
        try await withServer({ $0.synchronousImageWrites = true }) { (server: TestServer) async throws in
            let image = Fixture.image(300_000)
            let sha = Fixture.sha256(image)
            let put = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                   headers: ["Content-Type": "image/webp"], body: image)
            #expect(put.status == 201)
            #expect(try server.storedImages() == [sha])
            #expect(try server.partialFiles().isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: server.dataDirectory + "/images/\(sha)")) == image)
        }
    }

    @Test("an image over the 1 MiB write batch is stored byte for byte, and one cut short after a batch was written leaves no partial file")
    func imageOverWriteBatch() async throws {
        try await withServer { (server: TestServer) async throws in
            // Not periodic within a MiB, so batches written out of order or twice would change the stored bytes.
            let image = Data((0..<(2_500_000)).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ ($0 >> 13)) })
            let sha = Fixture.sha256(image)
            let put = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                   headers: ["Content-Type": "image/png"], body: image)
            #expect(put.status == 201)
            #expect(try Data(contentsOf: URL(fileURLWithPath: server.dataDirectory + "/images/\(sha)")) == image)

            let other = Data(image.reversed())
            let cut = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(Fixture.sha256(other))",
                                                   headers: ["Content-Type": "image/png"], body: other.prefix(1_500_000),
                                                   declaredLength: other.count, closeAfterSending: true)
            #expect(cut.status == 400)
            #expect(try server.storedImages() == [sha])
            #expect(try server.partialFiles().isEmpty)
        }
    }

    @Test("a non-image Content-Type gets 415, a missing length 411, a malformed hash 400")
    func refusals() async throws {
        try await withServer { (server: TestServer) async throws in
            let image = Fixture.image()
            let path = "/v1/images/\(Fixture.sha256(image))"
            let text = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path,
                                                    headers: ["Content-Type": "text/plain"], body: image)
            #expect(text.status == 415)
            let chunked = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: path,
                                                       headers: ["Content-Type": "image/png", "Transfer-Encoding": "chunked"],
                                                       body: Data("0\r\n\r\n".utf8), sendLength: false)
            #expect(chunked.status == 411)
            let bad = await RawHTTPClient.exchange(port: server.port, method: "HEAD", path: "/v1/images/ABC")
            #expect(bad.status == 400)
            let unknown = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v2/nothing")
            #expect(unknown.status == 404)
            #expect(unknown.json["error"] as? String == "not-found")
        }
    }
}
