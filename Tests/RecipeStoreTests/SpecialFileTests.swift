import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("`image set` on a named pipe, socket, device or folder is refused at once, without reading or waiting")
struct SpecialFileTests {
    /// The kind of store error `body` throws, or nil.
    func kind(_ body: () throws -> Void) -> StoreError.Kind? {
        do { try body(); return nil } catch let error as StoreError { return error.kind } catch { return nil }
    }

    /// The names in the media folder besides its lock file.
    func mediaNames(_ store: RecipeStore) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.media.directory.path).filter { $0 != ".lock" }
    }

    @Test("a named pipe with no writer is refused at once (open would wait for a writer for ever)")
    func namedPipe() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let fifo = dir.url.appendingPathComponent("photo.png").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let media = store.media
        let (inTime, refusal) = runBounded(seconds: 10, release: { releaseReader(ofPipe: fifo) }) {
            kind { _ = try media.stage(from: fifo) }
        }
        #expect(inTime, "stage waited in open() for a writer")
        #expect(refusal == .imageNotRegularFile(path: fifo, type: .namedPipe))
        #expect(try mediaNames(store).isEmpty)
    }

    @Test("a socket, a device and a folder are refused, each named for what it is")
    func otherSpecialFiles() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let socketPath = dir.url.appendingPathComponent("s.png").path
        let listener = try bindUnixSocket(at: socketPath)
        defer { close(listener) }
        #expect(kind { _ = try store.media.stage(from: socketPath) } == .imageNotRegularFile(path: socketPath, type: .socket))
        #expect(kind { _ = try store.media.stage(from: "/dev/null") } == .imageNotRegularFile(path: "/dev/null", type: .device))
        let folder = dir.url.appendingPathComponent("album.png").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(kind { _ = try store.media.stage(from: folder) } == .imageNotRegularFile(path: folder, type: .folder))
        #expect(try mediaNames(store).isEmpty)
    }

    @Test("a symbolic link to an image is followed; one to a named pipe is refused like the pipe")
    func symbolicLinks() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let image = dir.file("real.png", pngBytes())
        let imageLink = dir.url.appendingPathComponent("link.png").path
        try FileManager.default.createSymbolicLink(atPath: imageLink, withDestinationPath: image)
        let staged = try store.media.stage(from: imageLink)
        #expect(staged.byteCount == Int64(pngBytes().count))
        store.media.discard(staged)
        let fifo = dir.url.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let pipeLink = dir.url.appendingPathComponent("pipe.png").path
        try FileManager.default.createSymbolicLink(atPath: pipeLink, withDestinationPath: fifo)
        let media = store.media
        let (inTime, refusal) = runBounded(seconds: 10, release: { releaseReader(ofPipe: fifo) }) {
            kind { _ = try media.stage(from: pipeLink) }
        }
        #expect(inTime)
        #expect(refusal == .imageNotRegularFile(path: pipeLink, type: .namedPipe))
    }

    @Test("the refusals say what the path is and what to do")
    func messages() {
        func message(_ type: StoreError.SpecialFile) -> String? {
            StoreError(.imageNotRegularFile(path: "/p", type: type)).errorDescription
        }
        #expect(message(.namedPipe) == "/p is a named pipe (FIFO), not an image file; save the image to a file and give its path")
        #expect(message(.socket) == "/p is a socket, not an image file; save the image to a file and give its path")
        #expect(message(.device) == "/p is a device, not an image file; save the image to a file and give its path")
        #expect(message(.folder) == "/p is a folder, not an image file; give the path of an image file")
        #expect(message(.other) == "/p is not a regular file; save the image to a file and give its path")
    }

    /// A listening Unix-domain socket bound at `path`; the caller closes it.
    func bindUnixSocket(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        return descriptor
    }
}
