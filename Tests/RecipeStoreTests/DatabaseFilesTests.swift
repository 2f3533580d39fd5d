import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("Only SQLite opens a home's database files, under their one name")
struct DatabaseFilesTests {
    /// The kind of store error `body` throws, or nil.
    func kind(_ body: () throws -> Void) -> StoreError.Kind? {
        do { try body(); return nil } catch let error as StoreError { return error.kind } catch { return nil }
    }

    @Test("an image or a recipe file that is the home's database, its WAL, or a link to one is refused, never opened")
    func databaseFilesAreNeverRead() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        _ = try store.create(title: "Soup")
        let database = dir.home.databaseURL.path
        let link = dir.url.appendingPathComponent("photo.png").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: database)
        let hardLink = dir.url.appendingPathComponent("recipe.json").path
        #expect(Glibc.link(database + "-wal", hardLink) == 0)
        for path in [database, database + "-wal", database + "-shm", link, hardLink] {
            #expect(kind { _ = try store.media.stage(from: path) } == .databaseFileGiven(path: path), "\(path)")
            #expect(throws: UserFile.Refusal.databaseFile, "\(path)") {
                _ = try UserFile.read(path, maxBytes: 1 << 30, refusing: DatabaseFiles(home: dir.home))
            }
        }
        #expect(!DatabaseFiles(home: dir.home).contains(path: dir.file("real.png", pngBytes())))
        #expect(try store.recipes().map(\.title) == ["Soup"])
    }

    @Test("a database that is a symbolic link (to another home's) or has a second hard link is refused, untouched")
    func linkedDatabaseRefused() throws {
        let first = TemporaryDirectory()
        do { _ = try RecipeStore(home: first.home).create(title: "Mine") }
        let database = first.home.databaseURL.path
        let before = try #require(fileBytes(database))

        let second = TemporaryDirectory()
        try FileManager.default.createDirectory(at: second.home.url, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: second.home.databaseURL.path, withDestinationPath: database)
        for access in [RecipeStore.Access.readWrite, .readOnly] {
            guard case .linkedDatabase(let path, let detail)? = kind({ _ = try RecipeStore(home: second.home, access: access) })
            else {
                Issue.record("a symbolic link was opened (\(access))")
                continue
            }
            #expect(path == second.home.databaseURL.path && detail == "a symbolic link to \(database)")
        }

        let third = TemporaryDirectory()
        try FileManager.default.createDirectory(at: third.home.url, withIntermediateDirectories: true)
        #expect(Glibc.link(database, third.home.databaseURL.path) == 0)
        for home in [third.home, first.home] {
            #expect(kind { _ = try RecipeStore(home: home) }
                == .linkedDatabase(path: home.databaseURL.path, detail: "one of 2 names (hard links) of one file"))
        }
        #expect(fileBytes(database) == before)
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
        let message = StoreError(.linkedDatabase(path: "/h/recipes.sqlite3", detail: "a symbolic link to /o/recipes.sqlite3"))
        #expect(message.errorDescription?.hasPrefix("/h/recipes.sqlite3 is a symbolic link to /o/recipes.sqlite3; ") == true)
    }
}
