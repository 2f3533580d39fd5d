import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeStore

@Suite("Opening a store keeps this process's locks on the database file")
struct DatabaseLockTests {
    /// Whether another process sees a lock of this process on the range of the database file where SQLite keeps its
    /// SHARED locks (a WAL connection holds one as long as it is open: the last connection to close is the one that
    /// may checkpoint and remove the WAL). Asked with `fcntl(F_GETLK)` from a python3 child.
    static func sharedLockHeld(on path: String) throws -> Bool {
        let script = """
            import fcntl, os, struct, sys
            fd = os.open(sys.argv[1], os.O_RDONLY)
            asked = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0x40000002, 510, 0)
            kind = struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, asked))[0]
            print("locked" if kind != fcntl.F_UNLCK else "free")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return answer == "locked\n"
    }

    @Test("a read-write store opened while a read-only one is open (the REPL's first change) keeps the file locked")
    func reopeningKeepsTheLock() throws {
        let dir = TemporaryDirectory()
        _ = try RecipeStore(home: dir.home).create(title: "Soup")
        let path = dir.home.databaseURL.path
        let reading = try RecipeStore(home: dir.home, access: .readOnly)
        _ = try reading.recipes()
        #expect(try Self.sharedLockHeld(on: path), "a WAL connection holds its SHARED lock while open")
        let writing = try RecipeStore(home: dir.home, access: .readWrite)
        try writing.apply(.title("Tomato soup"), to: 1)
        _ = try writing.recipes()
        #expect(try Self.sharedLockHeld(on: path),
                "the open checked the file without a descriptor of its own: closing one would have dropped the lock")
        withExtendedLifetime(reading) {}
    }
}
