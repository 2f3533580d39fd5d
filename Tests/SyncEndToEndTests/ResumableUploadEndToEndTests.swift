import Foundation
import Testing

/// Through the binaries: a sync killed with `kill -9` in the middle of an image upload to a server that keeps partial
/// uploads, then another sync: the image arrives once, whole, from where the server stopped, and no partial is left.
@Suite("A resumable upload survives kill -9")
struct ResumableUploadEndToEndTests {
    @Test("kill -9 during an image upload, then a sync: the rest is PATCHed, the image stored once and whole, the partial gone")
    func killNineThenResume() throws {
        let client = Client()
        let size = 20 << 20
        try client.createRecipes(1, imageSize: size)
        // The server waits before it reads the first upload's body: the client fills the socket buffers and is
        // killed mid-body; the server then reads what was sent, meets the end of the connection and keeps it.
        let server = try client.startServer(faults: ["PUT /v1/images/*: latency=3s first=1"], features: "all")
        defer { server.stop() }
        let sync = try client.start(["sync"])
        let uploading = try waitUntil(timeout: 60) { try client.status(of: 1)?["state"] as? String == "uploading" }
        try #require(uploading, "the recipe never became uploading: \(sync.stdout) \(sync.stderr)")
        pause(1)
        sync.send(SIGKILL)
        #expect(sync.wait(timeout: 60) != nil)
        let uploads = server.dataDirectory.appendingPathComponent("uploads").path
        let kept = waitUntil(timeout: 60) {
            ((try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []).contains { !$0.hasPrefix(".") }
        }
        try #require(kept, "the server kept no partial of the cut upload")

        let again = try client.run(["sync"])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        let images = server.requests().filter { $0.path.hasPrefix("/v1/images/") }
        let patches = images.filter { $0.method == "PATCH" }
        #expect(patches.count == 1 && patches.first?.status == 201, "\(images)")
        #expect(images.filter { $0.method == "PUT" }.count == 1, "only the killed PUT: never sent whole again: \(images)")
        let first = try #require(images.first { $0.method == "PUT" })
        #expect(first.bytesReceived > 0 && (patches.first?.bytesReceived ?? 0) + first.bytesReceived <= size + 1,
                "the PATCH sent only what the cut PUT had not: \(first.bytesReceived) + \(patches.first?.bytesReceived ?? 0)")
        let stored = server.storedImageFiles()
        try #require(stored.count == 1, "\(stored)")
        let original = try #require(FileManager.default.contents(atPath: client.directory.url.appendingPathComponent("image-1.png").path))
        let copy = FileManager.default.contents(atPath: server.dataDirectory.appendingPathComponent("images/\(stored[0])").path)
        #expect(copy == original, "the image arrived whole")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []).filter { !$0.hasPrefix(".") }.isEmpty,
                "the partial is gone")
        #expect(try client.status(of: 1)?["state"] as? String == "synced")
    }
}
