import Foundation
import SystemFiles
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("AtomicFile: the final name shows the whole file or nothing, and a failure leaves nothing behind")
struct AtomicFileTests {
    @Test("written in pieces and committed: the exact bytes are under the final name and no temporary file is left")
    func writeAndCommit() throws {
        let folder = try ScratchFolder()
        let file = try AtomicFile(creating: folder.path(".tmp-test@1"))
        try file.write(Data("hello, ".utf8))
        try file.write([UInt8]())
        try file.write(Array("world".utf8))
        #expect(folder.names() == [".tmp-test@1"])  // only the temporary name until the commit
        try file.commit(to: folder.path("final.json"))
        #expect(folder.names() == ["final.json"])
        #expect(try folder.contents("final.json") == Data("hello, world".utf8))
        #expect(folder.mode("final.json") == 0o600 & ~folder.umask)
    }

    @Test("a commit replaces the file at the final name, and flushing the file and the folder gives the same result")
    func commitReplacesAndFlushes() throws {
        let folder = try ScratchFolder()
        try Data("old contents, longer".utf8).write(to: URL(fileURLWithPath: folder.path("final")))
        let file = try AtomicFile(creating: folder.path(".tmp-test@2"), permissions: 0o644)
        try file.write(Data("new".utf8))
        try file.commit(to: folder.path("final"), flushing: [.file, .folder])
        #expect(folder.names() == ["final"])
        #expect(try folder.contents("final") == Data("new".utf8))
        #expect(folder.mode("final") == 0o644 & ~folder.umask)
    }

    @Test("a rename that fails (the final name is a folder) throws its errno and leaves neither file")
    func failedRenameLeavesNothing() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path("taken"), withIntermediateDirectories: false)
        let file = try AtomicFile(creating: folder.path(".tmp-test@3"))
        try file.write(Data("bytes".utf8))
        let error = #expect(throws: ErrnoError.self) { try file.commit(to: folder.path("taken"), flushing: [.file]) }
        #expect(error == ErrnoError(EISDIR, .rename(from: folder.path(".tmp-test@3")), path: folder.path("taken")))
        #expect(error?.errorDescription
            == "cannot rename \(folder.path(".tmp-test@3")) to \(folder.path("taken")): Is a directory")
        #expect(folder.names() == ["taken"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("taken")).isEmpty)
    }

    @Test("a temporary file in a folder that does not exist is refused with ENOENT, and nothing is created")
    func missingFolder() throws {
        let folder = try ScratchFolder()
        let path = folder.path("absent/.tmp-test@4")
        #expect(throws: ErrnoError(ENOENT, .create, path: path)) { try AtomicFile(creating: path) }
        #expect(folder.names().isEmpty)
    }

    @Test("a temporary name that exists (a file, or a symbolic link) is refused and left as it was")
    func existingTemporaryNameRefused() throws {
        let folder = try ScratchFolder()
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: folder.path(".tmp-test@5")))
        #expect(throws: ErrnoError(EEXIST, .create, path: folder.path(".tmp-test@5"))) {
            try AtomicFile(creating: folder.path(".tmp-test@5"))
        }
        #expect(try folder.contents(".tmp-test@5") == Data("someone else's".utf8))
        try FileManager.default.createSymbolicLink(atPath: folder.path("link"), withDestinationPath: folder.path("target"))
        #expect(throws: ErrnoError(EEXIST, .create, path: folder.path("link"))) { try AtomicFile(creating: folder.path("link")) }
        #expect(folder.names() == [".tmp-test@5", "link"])  // the link's target was not created
    }

    @Test("a discarded file is removed, and discarding after a commit leaves the committed file alone")
    func discard() throws {
        let folder = try ScratchFolder()
        let dropped = try AtomicFile(creating: folder.path(".tmp-test@6"))
        try dropped.write(Data("x".utf8))
        dropped.discard()
        #expect(folder.names().isEmpty)
        #expect(throws: ErrnoError(EBADF, .write, path: folder.path(".tmp-test@6"))) { try dropped.write(Data("y".utf8)) }
        #expect(folder.names().isEmpty)

        let committed = try AtomicFile(creating: folder.path(".tmp-test@7"))
        try committed.commit(to: folder.path("kept"))
        committed.discard()
        #expect(folder.names() == ["kept"])
    }

    @Test("a file released before it was committed removes its temporary name")
    func releasedUncommitted() throws {
        let folder = try ScratchFolder()
        func writeAndForget() throws {
            let file = try AtomicFile(creating: folder.path(".tmp-test@8"))
            try file.write(Data("abandoned".utf8))
            #expect(folder.names() == [".tmp-test@8"])
        }
        try writeAndForget()
        #expect(folder.names().isEmpty)
    }

    @Test("a write after the file was closed fails, and the failure removes the temporary file")
    func failedStepRemoves() throws {
        let folder = try ScratchFolder()
        let file = try AtomicFile(creating: folder.path(".tmp-test@9"))
        try file.write(Data("first".utf8))
        try file.close()
        #expect(throws: ErrnoError(EBADF, .write, path: folder.path(".tmp-test@9"))) { try file.write(Data("late".utf8)) }
        #expect(folder.names().isEmpty)
        #expect(throws: ErrnoError.self) { try file.commit(to: folder.path("final")) }
        #expect(folder.names().isEmpty)
    }

    @Test("a reused file is overwritten from the start, cut to what was written, and renamed: same inode, old name gone")
    func reuseShorter() throws {
        let folder = try ScratchFolder()
        try Data(String(repeating: "x", count: 5_000).utf8).write(to: URL(fileURLWithPath: folder.path("spare")))
        let inode = folder.inode("spare")
        let file = try AtomicFile(reusing: folder.path("spare"))
        try file.write(Data("{\"short\":1}".utf8))
        try file.commit(to: folder.path("new"))
        #expect(folder.names() == ["new"])
        #expect(folder.inode("new") == inode)
        #expect(try folder.contents("new") == Data("{\"short\":1}".utf8))
    }

    @Test("a reused file shorter than the new bytes grows to hold them all")
    func reuseLonger() throws {
        let folder = try ScratchFolder()
        try Data("ab".utf8).write(to: URL(fileURLWithPath: folder.path("spare")))
        let bytes = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let file = try AtomicFile(reusing: folder.path("spare"))
        try file.write(bytes)
        try file.commit(to: folder.path("new"))
        #expect(try folder.contents("new") == bytes)
        #expect(folder.names() == ["new"])
    }

    @Test("reusing a missing file or a symbolic link is refused, and creates or follows nothing")
    func reuseRefused() throws {
        let folder = try ScratchFolder()
        #expect(throws: ErrnoError(ENOENT, .open, path: folder.path("gone"))) { try AtomicFile(reusing: folder.path("gone")) }
        try Data("target".utf8).write(to: URL(fileURLWithPath: folder.path("target")))
        try FileManager.default.createSymbolicLink(atPath: folder.path("link"), withDestinationPath: folder.path("target"))
        #expect(throws: ErrnoError(ELOOP, .open, path: folder.path("link"))) { try AtomicFile(reusing: folder.path("link")) }
        #expect(folder.names() == ["link", "target"])
        #expect(try folder.contents("target") == Data("target".utf8))
    }

    @Test("a file appended to keeps its bytes and gets the new ones after them; kept, it stays; committed, it moves whole")
    func appendKeepCommit() throws {
        let folder = try ScratchFolder()
        try Data("first,".utf8).write(to: URL(fileURLWithPath: folder.path("partial")))
        let more = try AtomicFile(appendingTo: folder.path("partial"))
        try more.write(Data("second,".utf8))
        _ = try more.keep()
        #expect(try folder.contents("partial") == Data("first,second,".utf8))
        let last = try AtomicFile(appendingTo: folder.path("partial"))
        try last.write(Data("third".utf8))
        try last.commit(to: folder.path("whole"))
        #expect(folder.names() == ["whole"])
        #expect(try folder.contents("whole") == Data("first,second,third".utf8))
    }

    @Test("appending to a missing file or a symbolic link is refused; a file appended to and discarded is removed")
    func appendRefusedAndDiscarded() throws {
        let folder = try ScratchFolder()
        #expect(throws: ErrnoError(ENOENT, .open, path: folder.path("gone"))) { try AtomicFile(appendingTo: folder.path("gone")) }
        try Data("target".utf8).write(to: URL(fileURLWithPath: folder.path("target")))
        try FileManager.default.createSymbolicLink(atPath: folder.path("link"), withDestinationPath: folder.path("target"))
        #expect(throws: ErrnoError(ELOOP, .open, path: folder.path("link"))) { try AtomicFile(appendingTo: folder.path("link")) }
        let dropped = try AtomicFile(appendingTo: folder.path("target"))
        try dropped.write(Data("more".utf8))
        dropped.discard()
        #expect(folder.names() == ["link"])
    }

    @Test("a kept file stays whole under its temporary name; adopted later, it is committed, or discarded")
    func keepAndAdopt() throws {
        let folder = try ScratchFolder()
        let first = try AtomicFile(creating: folder.path(".tmp-test@10"))
        try first.write(Data("staged".utf8))
        try first.flush()
        let kept = try first.keep()
        first.discard()  // no longer its to remove
        #expect(kept == folder.path(".tmp-test@10"))
        #expect(try folder.contents(".tmp-test@10") == Data("staged".utf8))
        try AtomicFile(adopting: kept).commit(to: folder.path("installed"))
        #expect(folder.names() == ["installed"])
        #expect(try folder.contents("installed") == Data("staged".utf8))

        let second = try AtomicFile(creating: folder.path(".tmp-test@11"))
        let abandoned = try second.keep()
        AtomicFile(adopting: abandoned).discard()
        #expect(folder.names() == ["installed"])
    }

    @Test("a file created inside an open folder is renamed and removed there, also after the caller closed the folder")
    func insideOpenFolder() throws {
        let folder = try ScratchFolder()
        func make(_ name: String) throws -> AtomicFile {
            let descriptor = open(folder.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            return try AtomicFile(creating: name, inFolder: descriptor, folderPath: folder.root, permissions: 0o644)
        }
        let committed = try make(".tmp-test@12")
        #expect(committed.temporaryPath == folder.path(".tmp-test@12"))
        try committed.write(Data("inside".utf8))
        try committed.commit(to: folder.path("image.png"))
        #expect(folder.names() == ["image.png"])
        #expect(try folder.contents("image.png") == Data("inside".utf8))

        let dropped = try make(".tmp-test@13")
        #expect(folder.names() == [".tmp-test@13", "image.png"])
        dropped.discard()
        #expect(folder.names() == ["image.png"])
        #expect(throws: ErrnoError(EEXIST, .create, path: folder.path("image.png"))) { try make("image.png") }
    }

    @Test("flushing the folder of a path that is not a folder throws with that folder's path")
    func flushFolderFailure() throws {
        let folder = try ScratchFolder()
        try AtomicFile.flushFolder(containing: folder.path("anything"))
        #expect(throws: ErrnoError(ENOENT, .flushFolder, path: folder.path("absent"))) {
            try AtomicFile.flushFolder(containing: folder.path("absent/file"))
        }
    }
}
