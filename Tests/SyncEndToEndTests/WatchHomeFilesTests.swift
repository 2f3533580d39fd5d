import Foundation
import RecipesTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What is done to a file of the home under a running watcher.
enum HomeFileChange: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// `rm recipes.sqlite3` (and its journal files).
    case databaseDeleted
    /// `mv backup.sqlite3 recipes.sqlite3`, a copy made a moment before.
    case databaseReplaced
    /// A plain file renamed over `watch.fifo`.
    case fifoReplaced
    /// `rm watch.lock`.
    case lockDeleted

    var testDescription: String { rawValue }

    /// The file's name in the home and the word the watcher says of it.
    var file: (name: String, word: String) {
        switch self {
        case .databaseDeleted: ("recipes.sqlite3", "deleted")
        case .databaseReplaced: ("recipes.sqlite3", "replaced")
        case .fifoReplaced: ("watch.fifo", "replaced")
        case .lockDeleted: ("watch.lock", "deleted")
        }
    }

    /// Does it in `home`.
    func apply(in home: URL) throws {
        let path = home.appendingPathComponent(file.name).path
        switch self {
        case .databaseDeleted:
            for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        case .databaseReplaced:
            let backup = home.appendingPathComponent("backup.sqlite3").path
            try FileManager.default.copyItem(atPath: path, toPath: backup)
            try #require(rename(backup, path) == 0)
        case .fifoReplaced:
            let plain = home.appendingPathComponent("plain").path
            try #require(FileManager.default.createFile(atPath: plain, contents: Data()))
            try #require(rename(plain, path) == 0)
        case .lockDeleted:
            try #require(unlink(path) == 0)
        }
    }
}

@Suite("sync --watch and the files of its home changed under it", .serialized)
struct WatchHomeFilesTests {
    @Test("the database deleted or replaced, the FIFO replaced by a plain file, the lock deleted: the watcher says which and exits 1 for its supervisor; started again, it syncs what is there now", arguments: HomeFileChange.allCases)
    func noticesAndStops(_ change: HomeFileChange) throws {
        let here = Client()
        let server = try here.startServer()
        try here.edit(["new \"Soup\""])
        let watcher = try startWatcher(here)
        #expect(waitUntil(timeout: 60) { (try? server.storedRecipes().count) == 1 }, "\(watcher.stdout)")

        try change.apply(in: here.homeURL)
        #expect(waitUntil(timeout: 60) { !watcher.isRunning }, "the watcher did not notice: \(watcher.stdout)")
        let ended = watcher.result(timeout: 60)
        #expect(ended.status == 1, "\(ended)")
        #expect(ended.stderr.hasPrefix(
            "recipes: \(here.homePath)/\(change.file.name) was \(change.file.word) while the watcher ran ("), "\(ended)")
        #expect(ended.stderr.contains("start it again (`recipes sync --watch`"), "\(ended)")
        #expect(!watchNotices(watcher, "home-changed").isEmpty, "\(ended)")

        if change == .fifoReplaced {
            // What is at the FIFO's path now is not one: the next watcher refuses it, saying what to do.
            let refused = try here.run(["sync", "--watch", "--json"])
            #expect(refused.status == 1 && refused.stderr.contains("watch.fifo is not a FIFO of yours"), "\(refused)")
            unlink(here.homeURL.appendingPathComponent("watch.fifo").path)
        }
        try here.edit(["new \"Bread\""])
        let again = try startWatcher(here)
        #expect(waitUntil(timeout: 60) { (try? server.storedRecipes().map(\.name).contains("Bread")) == true },
                "\(again.stdout) \(again.stderr)")
        again.send(SIGTERM)
        #expect(again.result(timeout: 60).status == 0)
    }
}
