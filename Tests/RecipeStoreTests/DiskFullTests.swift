import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeStore

@Suite("A full disk is named as such, with what to do")
struct DiskFullTests {
    @Test("SQLite's errors on a full disk, from a table: SQLITE_FULL, and an I/O error when the disk has (almost) no room")
    func translation() {
        let path = "/home/me/recipes/recipes.sqlite3"
        func kind(_ code: ResultCode, free: Int64?, inChange: Bool = true) -> StoreError.Kind {
            RecipeStore.translate(DatabaseError(resultCode: code, message: "disk I/O error"), path: path, inChange: inChange,
                                  freeBytes: { _ in free }).kind
        }
        #expect(kind(.SQLITE_FULL, free: 1 << 30) == .diskFull(path: path, freeBytes: 1 << 30, changeDiscarded: true))
        #expect(kind(.SQLITE_IOERR, free: 0) == .diskFull(path: path, freeBytes: 0, changeDiscarded: true))
        #expect(kind(.SQLITE_IOERR, free: 12 << 10, inChange: false) == .diskFull(path: path, freeBytes: 12 << 10, changeDiscarded: false))
        #expect(kind(.SQLITE_IOERR, free: 1 << 30) == .database(detail: "disk I/O error"), "room enough: another I/O error")
        #expect(kind(.SQLITE_IOERR, free: nil) == .database(detail: "disk I/O error"))
        #expect(kind(.SQLITE_CORRUPT, free: 0) == .corruptDatabase(path: path, detail: "disk I/O error", changeDiscarded: true))
        #expect(StoreError(.diskFull(path: path, freeBytes: 4096, changeDiscarded: true)).errorDescription
            == "the disk holding \(path) is full (4 KiB free), so recipes cannot use its database; this change was not "
            + "saved; free some space there (or move the home and give it with --home) and try again")
    }

    /// Whether this machine lets the tests mount a small tmpfs (root with the capability).
    static let canMountTmpfs: Bool = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-mount-probe-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder]) == 0 else { return false }
        return run("/bin/umount", [folder]) == 0
    }()

    /// Runs `executable` with `arguments`; its exit status.
    static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test("on a real full disk (a 1 MiB tmpfs filled up) an edit says the disk is full and changes nothing",
          .enabled(if: canMountTmpfs, "mounting a tmpfs needs root"))
    func realFullDisk() throws {
        let dir = TemporaryDirectory()
        let mountPoint = dir.url.appendingPathComponent("small").path
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        #expect(Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]) == 0)
        defer { _ = Self.run("/bin/umount", ["-l", mountPoint]) }
        let home = RecipesHome(url: URL(fileURLWithPath: mountPoint + "/home"), isExplicit: true)
        let id = try RecipeStore(home: home).create(title: "Soup").id
        // Fill what is left.
        let filler = mountPoint + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        while (try? handle.write(contentsOf: Data(count: 64 << 10))) != nil {}
        try? handle.close()
        func fillUp() -> StoreError.Kind? {
            do {
                let store = try RecipeStore(home: home)
                for index in 1...50 { try store.apply(.addIngredient(String(repeating: "salt \(index) ", count: 200)), to: id) }
                return nil
            } catch {
                return error.kind
            }
        }
        let kind = fillUp()
        guard case .diskFull(let path, _, _)? = kind else {
            Issue.record("not reported as a full disk: \(String(describing: kind))")
            return
        }
        #expect(path == home.databaseURL.path)
    }
}
