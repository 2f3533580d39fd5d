import Dispatch
import HTTPTypes
import Testing
@testable import ReferenceServer

@Suite("Server decisions without I/O")
struct ServerDecisionTests {
    @Test("with fsync, an image's last bytes are written, flushed, closed, renamed, then its directory is flushed; without, no flushes")
    func commitSteps() {
        #expect(ImageUpload.commitSteps(synchronous: true) == [.writeBuffered, .flushFile, .closeFile, .rename, .flushDirectory])
        #expect(ImageUpload.commitSteps(synchronous: false) == [.writeBuffered, .closeFile, .rename])
    }

    @Test("a body is written out before it ends only once 1 MiB of it is held in memory")
    func writeBatches() {
        #expect(ImageUpload.writeBatchBytes == 1 << 20)
        #expect(!ImageUpload.shouldWrite(buffered: 256 * 1024))
        #expect(!ImageUpload.shouldWrite(buffered: ImageUpload.writeBatchBytes - 1))
        #expect(ImageUpload.shouldWrite(buffered: ImageUpload.writeBatchBytes))
    }

    @Test("blocking file work runs on the dedicated Dispatch queue, not on the caller's cooperative thread")
    func blockingWorkOffThePool() async throws {
        #expect(DispatchQueue.getSpecific(key: BlockingFileIO.marker) == nil)
        let onQueue = try await BlockingFileIO.shared.run { DispatchQueue.getSpecific(key: BlockingFileIO.marker) == true }
        #expect(onQueue)
        await #expect(throws: ServerError.self) {
            try await BlockingFileIO.shared.run { () throws(ServerError) in throw ServerError.invalid("x") }
        }
    }

    @Test("the preflight refuses from the head alone what the routes refuse before reading the body", arguments: [
        ("PUT", "/v1/images/abc", ["Content-Type": "image/png", "Content-Length": "1001"], HTTPResponse.Status?.some(.contentTooLarge)),
        ("PUT", "/v1/images/abc", ["Content-Type": "text/plain", "Content-Length": "10"], .some(.unsupportedMediaType)),
        ("PUT", "/v1/images/abc", ["Content-Type": "image/png"], .some(.lengthRequired)),
        ("PUT", "/v1/images/abc", ["Content-Type": "image/png", "Content-Length": "1000"], .some(.unauthorized)),
        ("PUT", "/v1/recipes/x?y=1", ["Content-Type": "application/json", "Content-Length": "2000000", "If-None-Match": "*"], .some(.contentTooLarge)),
        ("PUT", "/v1/recipes/x", ["Content-Type": "text/plain", "Content-Length": "20", "If-Match": "\"3\""], .some(.unsupportedMediaType)),
        ("PUT", "/v1/recipes/x", ["Content-Type": "application/json", "Content-Length": "20"], .some(.preconditionRequired)),
        ("PUT", "/v1/recipes/x", ["Content-Type": "application/json", "Content-Length": "20", "If-Match": "*"], .some(.badRequest)),
    ] as [(String, String, [String: String], HTTPResponse.Status?)])
    func preflightRefuses(method: String, path: String, headers: [String: String], expected: HTTPResponse.Status?) {
        let withToken = expected == .unauthorized
        let preflight = RequestPreflight(token: withToken ? Array("t0k".utf8) : nil, maxImageBytes: 1000)
        #expect(preflight.refusal(Self.request(method, path, headers)) == expected)
    }

    @Test("the preflight wants the body of an acceptable upload, also with the right token")
    func preflightAccepts() {
        let preflight = RequestPreflight(token: Array("t0k".utf8), maxImageBytes: 1000)
        let image = Self.request("PUT", "/v1/images/abc", ["Content-Type": "image/png; x=y", "Content-Length": "1000", "Authorization": "Bearer t0k"])
        #expect(preflight.refusal(image) == nil)
        let recipe = Self.request("PUT", "/v1/recipes/x", ["Content-Type": "application/json", "Content-Length": "100", "Authorization": "bearer t0k",
                                                           "If-Match": "\"4\""])
        #expect(preflight.refusal(recipe) == nil)
        #expect(preflight.refusal(Self.request("GET", "/v1/health", [:])) == nil)
    }

    private static func request(_ method: String, _ path: String, _ headers: [String: String]) -> HTTPRequest {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        return HTTPRequest(method: HTTPRequest.Method(method)!, scheme: nil, authority: "127.0.0.1", path: path, headerFields: fields)
    }
}
