import Foundation
import Locking
import SystemFiles
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("writeAll and ErrnoError: every byte written, and a failure said in words")
struct WriteAllTests {
    @Test("through a non-blocking pipe that takes only part of each write, every byte arrives, in order")
    func shortWrites() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        defer { close(reader) }
        // Non-blocking: a write takes at most the room left in the pipe (64 KiB), so a 1 MiB body is written in many
        // short writes, each followed by a wait for room (`EAGAIN`).
        try #require(fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK) == 0)
        let sent = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let received = Locked<[UInt8]>([])
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var chunk = [UInt8](repeating: 0, count: 4096)  // small reads: the writer keeps finding the pipe full
            while true {
                let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                received.withLock { $0 += chunk[0..<count] }
            }
            drained.signal()
        }
        do {
            defer { close(writer) }  // the reader then sees the end, whatever happened
            try sent.withUnsafeBytes { try writeAll($0, to: writer, path: "the pipe") }
        }
        #expect(drained.wait(timeout: .now() + 60) == .success)
        let bytes = received.withLock { $0 }
        // Compared as a Bool: a failing comparison of two 1 MiB arrays would be diffed element by element.
        let whole = bytes == sent
        #expect(whole, "received \(bytes.count) of \(sent.count) bytes")
    }

    @Test("a write the system refuses throws its errno, the operation and the path")
    func refusedWrite() throws {
        let readOnly = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(readOnly >= 0)
        defer { close(readOnly) }
        let error = #expect(throws: ErrnoError.self) {
            try Array("x".utf8).withUnsafeBytes { try writeAll($0, to: readOnly, path: "/dev/null") }
        }
        #expect(error == ErrnoError(EBADF, .write, path: "/dev/null"))
        #expect(error?.errorDescription == "cannot write /dev/null: Bad file descriptor")
    }

    @Test("an errno error says what failed, where, and why in the system's words")
    func messages() {
        #expect(ErrnoError(ENOSPC, .write, path: "/x/y").errorDescription == "cannot write /x/y: No space left on device")
        #expect(ErrnoError(ENOSPC, .write, path: "/x/y").reason == "No space left on device")
        #expect(ErrnoError(EACCES, .create, path: "/x/.tmp").errorDescription == "cannot create /x/.tmp: Permission denied")
        #expect(ErrnoError(EIO, .flush, path: "/x/y").errorDescription == "cannot flush /x/y to disk: Input/output error")
        #expect(ErrnoError(EXDEV, .rename(from: "/a/t"), path: "/b/f").errorDescription
            == "cannot rename /a/t to /b/f: Invalid cross-device link")
        #expect(ErrnoError(ENOENT, .makeFolder, path: "/x").errorDescription
            == "cannot create the folder /x: No such file or directory")
    }

    @Test("the errno of a Foundation error is found in a POSIXError and in an NSError of the POSIX domain, not elsewhere")
    func foundationErrors() {
        #expect(ErrnoError.code(of: POSIXError(.ENOENT)) == ENOENT)
        #expect(ErrnoError.code(of: NSError(domain: NSPOSIXErrorDomain, code: Int(EACCES))) == EACCES)
        #expect(ErrnoError.code(of: CocoaError(.fileNoSuchFile)) == nil)
        #expect(ErrnoError.describe(EACCES) == "Permission denied")
    }
}
