import Foundation
import Logging
import Testing
import ReferenceServer

/// `resumable-images` over a real socket: an interrupted PUT keeps its bytes as a partial upload, HEAD reports them,
/// PATCH sends the rest; a partial is never an image.
@Suite("Resumable image uploads over a real socket", .serialized)
struct ResumableImageTests {
    private static let cut = 300_000
    private static let image = Self.image(1_000_000, seed: 11)
    private static let sha = Fixture.sha256(image)

    /// `count` bytes: a 4 KiB fixture block repeated (copied, not computed byte by byte: the suite's megabytes stay cheap
    /// in a debug build, beside the other suites running at once).
    private static func image(_ count: Int, seed: UInt8) -> Data {
        let block = Fixture.image(4096, seed: seed)
        var data = Data(capacity: count)
        while data.count < count { data.append(block.prefix(count - data.count)) }
        return data
    }

    /// Files kept in DIR/uploads.
    private func kept(_ server: TestServer) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads")
    }

    /// A PUT of the image that the `reset after=` fault cuts after `cut` bytes.
    private func interruptedPut(_ server: TestServer) async {
        let answer = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(Self.sha)",
                                                  headers: ["Content-Type": "image/jpeg"], body: Self.image)
        #expect(answer == .reset || answer == .closedWithoutAnswer)
    }

    private func head(_ server: TestServer) async -> RawOutcome {
        await RawHTTPClient.exchange(port: server.port, method: "HEAD", path: "/v1/images/\(Self.sha)")
    }

    private func patch(_ server: TestServer, offset: Int, _ part: Data, length: Int = image.count, complete: Bool) async -> RawOutcome {
        await RawHTTPClient.exchange(port: server.port, method: "PATCH", path: "/v1/images/\(Self.sha)",
                                     headers: ["Content-Type": "application/partial-upload", "Upload-Offset": String(offset),
                                               "Upload-Length": String(length), "Upload-Complete": complete ? "?1" : "?0"], body: part)
    }

    /// Cuts the first image PUT after `cut` bytes.
    private static func resetFault(_ configuration: inout ReferenceServerConfiguration) throws {
        configuration.faults = [try FaultRule.parse("PUT /v1/images/*: reset after=\(cut) first=1")]
    }

    @Test("reset after=SIZE keeps the SIZE bytes read as a partial: HEAD answers 404 with Upload-Offset, nothing is an image")
    func resetKeepsPartial() async throws {
        try await withServer(Self.resetFault) { (server: TestServer) async throws in
            await interruptedPut(server)
            let head = await head(server)
            #expect(head.status == 404)
            #expect(head.header("upload-offset") == String(Self.cut))
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/images/\(Self.sha)").status == 404)
            #expect(try server.storedImages().isEmpty)
            #expect(try kept(server) == [Self.sha])
            let missing = await RawHTTPClient.exchange(port: server.port, method: "POST", path: "/v1/images/missing",
                                                       headers: ["Content-Type": "application/json"], body: Data(#"{"sha256":["\#(Self.sha)"]}"#.utf8))
            #expect(missing.json["missing"] as? [String] == [Self.sha])
            let entry = try #require(try await server.logEntries(atLeast: 1).first)
            #expect(entry["fault"] as? String == "reset after=\(Self.cut)")
            #expect(entry["bytesReceived"] as? Int == Self.cut)
        }
    }

    @Test("PATCH with the rest completes the image as the PUT would (201, then it is stored whole) and the partial is gone")
    func patchCompletes() async throws {
        try await withServer(Self.resetFault) { (server: TestServer) async throws in
            await interruptedPut(server)
            let rest = await patch(server, offset: Self.cut, Self.image.suffix(from: Self.cut), complete: true)
            #expect(rest.status == 201)
            #expect(rest.json["sha256"] as? String == Self.sha && rest.json["bytes"] as? Int == Self.image.count)
            #expect(rest.json["url"] as? String == "http://127.0.0.1:\(server.port)/v1/images/\(Self.sha)")
            let get = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/images/\(Self.sha)")
            #expect(get.status == 200 && get.body == Self.image && get.header("content-type") == "image/jpeg")
            #expect(try kept(server).isEmpty)
            let again = await patch(server, offset: Self.cut, Self.image.suffix(from: Self.cut), complete: true)
            #expect(again.status == 200)
        }
    }

    @Test("parts with Upload-Complete: ?0 answer 204 with the new Upload-Offset; the last part completes the image")
    func patchInParts() async throws {
        try await withServer(Self.resetFault) { (server: TestServer) async throws in
            await interruptedPut(server)
            let first = await patch(server, offset: Self.cut, Self.image[Self.cut..<500_000], complete: false)
            #expect(first.status == 204)
            #expect(first.header("upload-offset") == "500000")
            #expect(await head(server).header("upload-offset") == "500000")
            let last = await patch(server, offset: 500_000, Self.image.suffix(from: 500_000), complete: true)
            #expect(last.status == 201)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/images/\(Self.sha)").body == Self.image)
        }
    }

    @Test("a PATCH from another offset is 409 with the server's Upload-Offset, and the partial stays as it was")
    func offsetMismatch() async throws {
        try await withServer(Self.resetFault) { (server: TestServer) async throws in
            await interruptedPut(server)
            let wrong = await patch(server, offset: 200_000, Self.image.suffix(from: 200_000), complete: true)
            #expect(wrong.status == 409)
            #expect(wrong.header("upload-offset") == String(Self.cut))
            #expect(wrong.json["error"] as? String == "offset-mismatch")
            #expect(await head(server).header("upload-offset") == String(Self.cut))
            #expect(await patch(server, offset: Self.cut, Self.image.suffix(from: Self.cut), complete: true).status == 201)
        }
    }

    @Test("a last part that makes a whole whose SHA-256 differs is refused with 422, nothing is stored and the partial is gone")
    func wrongWhole() async throws {
        try await withServer(Self.resetFault) { (server: TestServer) async throws in
            await interruptedPut(server)
            var other = Self.image.suffix(from: Self.cut)
            other[other.startIndex] ^= 0xFF
            let refused = await patch(server, offset: Self.cut, other, complete: true)
            #expect(refused.status == 422)
            #expect(refused.json["error"] as? String == "sha256-mismatch")
            let head = await head(server)
            #expect(head.status == 404 && head.header("upload-offset") == nil)
            #expect(try kept(server).isEmpty && server.storedImages().isEmpty)
            #expect(await patch(server, offset: Self.cut, Self.image.suffix(from: Self.cut), complete: true).status == 404)
        }
    }

    @Test("a server restarted with the partial on disk reports it and completes it, hashing the kept bytes again")
    func restartKeepsPartial() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-resume-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ReferenceServerConfiguration(dataDirectory: directory, port: 0, synchronousImageWrites: false)
        configuration.faults = [try FaultRule.parse("PUT /v1/images/*: reset after=\(Self.cut)")]
        let first = try await startQuietly(configuration)
        let cut = await RawHTTPClient.exchange(port: first.port, method: "PUT", path: "/v1/images/\(Self.sha)",
                                               headers: ["Content-Type": "image/jpeg"], body: Self.image)
        #expect(cut == .reset || cut == .closedWithoutAnswer)
        await first.stop()
        configuration.faults = []
        let second = try await startQuietly(configuration)
        let head = await RawHTTPClient.exchange(port: second.port, method: "HEAD", path: "/v1/images/\(Self.sha)")
        #expect(head.status == 404 && head.header("upload-offset") == String(Self.cut))
        let rest = await RawHTTPClient.exchange(port: second.port, method: "PATCH", path: "/v1/images/\(Self.sha)",
                                                headers: ["Content-Type": "application/partial-upload", "Upload-Offset": String(Self.cut),
                                                          "Upload-Length": String(Self.image.count), "Upload-Complete": "?1"],
                                                body: Self.image.suffix(from: Self.cut))
        #expect(rest.status == 201)
        let get = await RawHTTPClient.exchange(port: second.port, method: "GET", path: "/v1/images/\(Self.sha)")
        #expect(get.body == Self.image && get.header("content-type") == "image/jpeg")
        await second.stop()
    }

    @Test("a partial lives at most its lifetime: an expired one is reported absent, and removed at start-up or when a new one is kept")
    func expiry() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-resume-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ReferenceServerConfiguration(dataDirectory: directory, port: 0, synchronousImageWrites: false)
        configuration.faults = [try FaultRule.parse("PUT /v1/images/*: reset after=\(Self.cut)")]
        let first = try await startQuietly(configuration)
        _ = await RawHTTPClient.exchange(port: first.port, method: "PUT", path: "/v1/images/\(Self.sha)",
                                        headers: ["Content-Type": "image/jpeg"], body: Self.image)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/uploads") == [Self.sha])
        await first.stop()
        configuration.partialLifetime = .zero
        let second = try await startQuietly(configuration)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/uploads").isEmpty)
        _ = await RawHTTPClient.exchange(port: second.port, method: "PUT", path: "/v1/images/\(Self.sha)",
                                        headers: ["Content-Type": "image/jpeg"], body: Self.image)
        let head = await RawHTTPClient.exchange(port: second.port, method: "HEAD", path: "/v1/images/\(Self.sha)")
        #expect(head.status == 404 && head.header("upload-offset") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/uploads").isEmpty)
        await second.stop()
    }

    @Test("a body cut short by the client is kept too, and a PUT of the whole image afterwards stores it and drops the partial")
    func clientCutThenPut() async throws {
        try await withServer { (server: TestServer) async throws in
            let cut = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(Self.sha)",
                                                   headers: ["Content-Type": "image/png"], body: Self.image.prefix(100_000),
                                                   declaredLength: Self.image.count, closeAfterSending: true)
            #expect(cut.status == 400)
            #expect((cut.json["message"] as? String)?.contains("kept for 24 hours") == true)
            #expect(await head(server).header("upload-offset") == "100000")
            #expect(try server.partialFiles().isEmpty)
            let whole = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(Self.sha)",
                                                     headers: ["Content-Type": "image/png"], body: Self.image)
            #expect(whole.status == 201)
            #expect(try kept(server).isEmpty)
            let rest = await patch(server, offset: 100_000, Self.image.suffix(from: 100_000), complete: true)
            #expect(rest.status == 200)
        }
    }

    @Test("a PATCH that arrives while another still appends to the same image ends it, then goes on from what that one kept")
    func latestAppendWins() async throws {
        let image = Self.image(3_000_000, seed: 12)
        let sha = Fixture.sha256(image)
        let sent = Self.cut + 1_500_000
        try await withServer(Self.resetFault) { (server: TestServer) async throws in
            let cut = await RawHTTPClient.exchange(port: server.port, method: "PUT", path: "/v1/images/\(sha)",
                                                   headers: ["Content-Type": "image/jpeg"], body: image)
            #expect(cut == .reset || cut == .closedWithoutAnswer)
            func part(offset: Int, _ bytes: Data, declaredLength: Int? = nil, complete: Bool, readTimeout: Double = 60) async -> RawOutcome {
                await RawHTTPClient.exchange(port: server.port, method: "PATCH", path: "/v1/images/\(sha)",
                                             headers: ["Content-Type": "application/partial-upload", "Upload-Offset": String(offset),
                                                       "Upload-Length": String(image.count), "Upload-Complete": complete ? "?1" : "?0"],
                                             body: bytes, declaredLength: declaredLength, readTimeout: readTimeout)
            }
            // The first PATCH sends 1.5 MB of its 2.7 MB, then waits for an answer that cannot come. Once the server has
            // written its first mebibyte to the partial, it surely holds the image.
            async let stalled = part(offset: Self.cut, image[Self.cut..<sent], declaredLength: image.count - Self.cut, complete: true,
                                     readTimeout: 60)
            let partial = server.dataDirectory + "/uploads/" + sha
            for _ in 0..<1000 where (PartialUploadsProbe.size(partial) ?? 0) <= Self.cut {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect((PartialUploadsProbe.size(partial) ?? 0) > Self.cut)
            // A second PATCH from the old offset ends the first, which keeps every byte it received (at least the mebibyte
            // written, at most all it was sent), and is told the offset they make.
            let second = await part(offset: Self.cut, image.suffix(from: Self.cut), complete: true)
            #expect(second.status == 409)
            let kept = Int(second.header("upload-offset") ?? "") ?? 0
            try #require(kept >= Self.cut + (1 << 20) && kept <= sent, "Upload-Offset \(kept)")  // the rest is sent from it
            #expect(await stalled != .timedOut)
            let rest = await part(offset: kept, image.suffix(from: kept), complete: true)
            #expect(rest.status == 201)
            #expect(await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/images/\(sha)").body == image)
        }
    }

    @Test("with the feature off, a cut PUT keeps nothing: HEAD has no Upload-Offset and no partial file remains")
    func featureOff() async throws {
        try await withServer({ configuration in
            try Self.resetFault(&configuration)
            configuration.features = [.imagesMissing, .recipesBatch]
        }) { (server: TestServer) async throws in
            await interruptedPut(server)
            let head = await head(server)
            #expect(head.status == 404 && head.header("upload-offset") == nil)
            #expect(try kept(server).isEmpty && server.storedImages().isEmpty && server.partialFiles().isEmpty)
        }
    }
}

/// The size of a file, or nil.
enum PartialUploadsProbe {
    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }
}
