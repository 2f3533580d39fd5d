import Foundation
import RecipesTestSupport
@testable import SyncWatch
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("The home's files a watcher keeps: the same by identity, or deleted, or replaced")
struct HomeFilesTests {
    static let database = HomeFiles.Kept(
        path: "/h/recipes.sqlite3", identity: .init(device: 1, inode: 10), consequence: "a file no command uses")
    static let fifo = HomeFiles.Kept(
        path: "/h/watch.fifo", identity: .init(device: 1, inode: 11), consequence: "edits would not wake it")

    @Test("each set of identities now gives the change of the table", arguments: [
        ("all as opened", ["/h/recipes.sqlite3": HomeFiles.Identity(device: 1, inode: 10),
                           "/h/watch.fifo": .init(device: 1, inode: 11)], nil),
        ("the database's name gone", ["/h/watch.fifo": .init(device: 1, inode: 11)],
         HomeFiles.Change(kept: database, deleted: true)),
        ("another inode at the database's name", ["/h/recipes.sqlite3": .init(device: 1, inode: 12),
                                                  "/h/watch.fifo": .init(device: 1, inode: 11)],
         HomeFiles.Change(kept: database, deleted: false)),
        ("the same inode on another device", ["/h/recipes.sqlite3": .init(device: 1, inode: 10),
                                              "/h/watch.fifo": .init(device: 2, inode: 11)],
         HomeFiles.Change(kept: fifo, deleted: false)),
    ] as [(String, [String: HomeFiles.Identity], HomeFiles.Change?)])
    func changes(_ what: String, now: [String: HomeFiles.Identity], expected: HomeFiles.Change?) {
        #expect(HomeFiles.change([Self.database, Self.fifo], now: { now[$0] }) == expected, "\(what)")
    }

    @Test("a real file renamed over the kept one: the inotify descriptor is readable, and the change is told")
    func realRename() throws {
        let folder = TemporaryDirectory()
        try folder.home.createDirectories()
        let path = folder.home.databaseURL.path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
        let kept = HomeFiles.Kept(
            path: path, identity: try #require(HomeFiles.Identity.of(path: path)), consequence: "it")
        let files = try HomeFiles(home: folder.home, kept: [kept])
        #expect(files.change() == nil)
        let other = folder.home.url.appendingPathComponent("backup").path
        #expect(FileManager.default.createFile(atPath: other, contents: Data("new".utf8)))
        #expect(rename(other, path) == 0)
        var ready = pollfd(fd: files.descriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 60_000) == 1)
        files.drain()
        #expect(files.change() == HomeFiles.Change(kept: kept, deleted: false))
        #expect(files.change()?.errorDescription?.hasPrefix("\(path) was replaced while the watcher ran (it); ") == true)
    }
}
