import Foundation
import MealieAPI
import Testing
import Transport

@Suite("ImageIdentity: the same image across Mealie's WebP re-encoding")
struct ImageIdentityTests {
    static let seen = ImageIdentity.Seen(key: "167", etag: "\"59e1d296e3b2d3c8c117989dcf17bf88\"", sha256: "d0ba84")

    @Test("An upload only when the local image is not the one last confirmed in Mealie", arguments: [
        ("aa", "aa", false), ("bb", "aa", true), ("aa", nil, true), (nil, "aa", false), (nil, nil, false),
    ] as [(String?, String?, Bool)])
    func upload(local: String?, confirmed: String?, upload: Bool) {
        #expect(ImageIdentity.needsUpload(localSHA256: local, confirmedSHA256: confirmed) == upload)
    }

    @Test("The first step from the listed key: none, download (new or another key), or probe (the same key)", arguments: [
        (nil, nil, ImageIdentity.Step.noImage), ("167", nil, .download), (nil, "167", .noImage),
        ("167", "167", .probe), ("168", "167", .download),
    ] as [(String?, String?, ImageIdentity.Step)])
    func first(key: String?, seenKey: String?, step: ImageIdentity.Step) {
        let seen = seenKey.map { ImageIdentity.Seen(key: $0, etag: Self.seen.etag, sha256: Self.seen.sha256) }
        #expect(ImageIdentity.firstStep(seen: seen, key: key) == step)
    }

    @Test("After the probe: the same ETag is the same file; another (or none) means download and compare")
    func probe() {
        #expect(ImageIdentity.afterProbe(seen: Self.seen, etag: Self.seen.etag) == .unchanged)
        #expect(ImageIdentity.afterProbe(seen: Self.seen, etag: "\"other\"") == .download)
        #expect(ImageIdentity.afterProbe(seen: Self.seen, etag: nil) == .download)
    }

    @Test("After a download: the recorded SHA-256 is the same image (rewritten), another is a new image")
    func download() {
        #expect(ImageIdentity.isRecorded(sha256: "d0ba84", seen: Self.seen))
        #expect(!ImageIdentity.isRecorded(sha256: "e32210", seen: Self.seen))
        #expect(!ImageIdentity.isRecorded(sha256: "d0ba84", seen: nil))
    }

    @Test("The probe asks for one byte; its answer's ETag is read, 404 is no image, anything else an error")
    func probeAnswer() throws {
        let request = try #require(MealieServer(baseURL: "http://127.0.0.1:9000")).imageProbe(id: UUID())
        #expect(request.headers["Range"] == "bytes=0-0" && request.method == .get)
        let partial = HTTPResponse(status: 206, headers: ["ETag": "\"abc\"", "Content-Range": "bytes 0-0/47436"], body: Data("R".utf8))
        #expect(try MealieAnswer.imageETag(partial).get() == "\"abc\"")
        #expect(try MealieAnswer.imageETag(HTTPResponse(status: 404, body: Data(#"{"detail":"Not Found"}"#.utf8))).get() == nil)
        #expect(MealieAnswer.imageETag(HTTPResponse(status: 206)).failure?.problem == .missingField(path: "the ETag header"))
        #expect(MealieAnswer.imageETag(HTTPResponse(status: 405)).failure != nil)
    }
}
