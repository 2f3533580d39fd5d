import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeStore
#if canImport(Glibc)
import Glibc
#endif

@Suite("The built binary on a damaged database and in a read-only home")
struct DamagedHomeEndToEndTests {
    static let count = 240

    func damagedHome() throws -> (dir: TemporaryDirectory, bytes: Data, map: DamageMap) {
        let dir = TemporaryDirectory()
        try fillHome(dir.home, count: Self.count)
        let bytes = try damageMiddlePages(ofDatabaseAt: dir.home.databaseURL.path)
        let map = try DamageMap(home: dir.home, count: Self.count)
        try #require(!map.whole.isEmpty && !map.partsUnreadable.isEmpty, "\(map)")
        return (dir, bytes, map)
    }

    @Test("edit: a change that meets the damage exits 1 saying it was not saved, later changes are refused, and the file keeps every byte")
    func editOnDamagedDatabase() throws {
        let (dir, bytes, map) = try damagedHome()
        let path = dir.home.databaseURL.path
        let victim = map.partsUnreadable[0], healthy = map.whole[0]
        let result = try runRecipes(["edit", "--home", dir.homePath], input: "title \(victim) New\ntitle \(healthy) New\n")
        #expect(result.status == 1)
        let damaged = "\(path) is damaged (database disk image is malformed); this change was not saved, and recipes "
            + "writes nothing more to it: run `recipes doctor` to check it and save every readable recipe into a new database"
        #expect(result.stderr == "error: line 1: \(damaged)\nerror: line 2: \(damaged)\n")
        #expect(fileBytes(path) == bytes)
        let show = try runRecipes(["show", String(healthy), "--details", "--home", dir.homePath])
        #expect(show.status == 0 && show.stdout.contains("title:        Recipe \(healthy)\n"), "\(show)")
        #expect(show.stdout.contains("revision:     3 "), "\(show)")
    }

    @Test("list, show and status on a damaged database exit 1 with the damage message and write nothing")
    func readingCommandsWriteNothing() throws {
        let (dir, bytes, map) = try damagedHome()
        let path = dir.home.databaseURL.path
        for arguments in [["list"], ["status"], ["status", "--json"], ["show", String(map.partsUnreadable[0])]] {
            let result = try runRecipes(arguments + ["--home", dir.homePath])
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.stderr == "recipes: \(path) is damaged (database disk image is malformed); recipes writes "
                + "nothing more to it: run `recipes doctor` to check it and save every readable recipe into a new database\n")
            #expect(fileBytes(path) == bytes, "\(arguments) wrote to the damaged file")
        }
        let readable = try runRecipes(["show", String(map.whole[0]), "--home", dir.homePath])
        #expect(readable.status == 0)
        #expect(fileBytes(path) == bytes)
    }

    @Test("doctor exits 0 on a healthy home; on a damaged one it exits 1, says what it saved and what not, and the salvaged database is then used")
    func doctor() throws {
        let healthy = TemporaryDirectory()
        try fillHome(healthy.home, count: 2)
        let fine = try runRecipes(["doctor", "--home", healthy.homePath])
        #expect(fine.status == 0)
        #expect(fine.stdout == "\(healthy.home.databaseURL.path): no damage found (SQLite's integrity_check: ok; 2 recipes)\n")

        let (dir, bytes, map) = try damagedHome()
        let path = dir.home.databaseURL.path
        let result = try runRecipes(["doctor", "--home", dir.homePath])
        #expect(result.status == 1, "\(result)")
        let saved = map.whole.count + map.partsUnreadable.count
        #expect(result.stdout.contains("Saved \(saved) of \(saved + map.rowUnreadable.count) recipes into a new database.\n"),
                "\(result)")
        #expect(result.stdout.contains("The new database is now \(path); the damaged file was kept as \(path).damaged-"))
        #expect(result.stdout.contains("  \(map.partsUnreadable[0])  Recipe \(map.partsUnreadable[0]) ("), "\(result)")
        for id in map.rowUnreadable { #expect(result.stdout.contains("\n  \(id)  "), "lost \(id) not named: \(result)") }
        let kept = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.homePath)
            .first { $0.hasPrefix("recipes.sqlite3.damaged-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        #expect(fileBytes(dir.home.url.appendingPathComponent(kept).path) == bytes)

        let list = try runRecipes(["list", "--home", dir.homePath])
        #expect(list.status == 0)
        #expect(list.stdout.split(separator: "\n").count == saved + 1, "\(list)")
        let partialRow = list.stdout.split(separator: "\n").first { $0.hasPrefix("\(map.partsUnreadable[0]) ") }
        #expect(partialRow?.contains(" failed ") == true, "\(list)")
        #expect(try runRecipes(["doctor", "--home", dir.homePath]).status == 0)
    }

    @Test("a read-only home (mode 0500, its database 0400) still answers list, show and status, and refuses changes")
    func readOnlyHome() throws {
        let dir = TemporaryDirectory()
        try fillHome(dir.home, count: 2)
        let path = dir.home.databaseURL.path
        let before = try #require(fileBytes(path))
        // Tests run as root, for whom no permission applies: the commands then run as `nobody` through setpriv.
        let asRoot = geteuid() == 0
        var prefix: [String] = []
        if asRoot {
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv is needed to drop root")
            // The binary beside the home, where `nobody` may reach it (the build folder may sit under /root).
            let binary = dir.url.appendingPathComponent("recipes").path
            if link(builtProduct("recipes").path, binary) != 0 {
                try FileManager.default.copyItem(atPath: builtProduct("recipes").path, toPath: binary)
            }
            prefix = ["--reuid=65534", "--regid=65534", "--clear-groups", binary]
            chmod(dir.url.path, 0o755)
            for item in [dir.homePath, path] + ["media", "outbox", "logs"].map({ dir.homePath + "/" + $0 }) {
                chown(item, 65534, 65534)
            }
        }
        chmod(path, 0o400)
        chmod(dir.homePath, 0o500)
        defer { chmod(dir.homePath, 0o700) }
        func run(_ arguments: [String], input: String = "") throws -> ProcessResult {
            try runRecipes(prefix + arguments + ["--home", dir.homePath], input: input,
                           executable: asRoot ? URL(fileURLWithPath: "/usr/bin/setpriv") : nil)
        }
        let list = try run(["list"])
        #expect(list.status == 0 && list.stdout.contains("Recipe 2"), "\(list)")
        let show = try run(["show", "1", "--details"])
        #expect(show.status == 0 && show.stdout.contains("title:        Recipe 1"), "\(show)")
        let status = try run(["status"])
        #expect(status.status == 0 && status.stdout.contains("Recipe 1"), "\(status)")
        let edit = try run(["edit"], input: "list\ntitle 1 Changed\n")
        #expect(edit.status == 1 && edit.stdout.contains("Recipe 1"), "\(edit)")
        #expect(edit.stderr.hasPrefix("error: line 2: cannot open \(path)"), "\(edit)")
        #expect(fileBytes(path) == before)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.homePath)) == ["recipes.sqlite3", "media", "outbox", "logs"])
    }

    @Test("a home the user may not read (another user's, mode 0700): list, status, show, search and the REPL say so and exit 1")
    func unreadableHome() throws {
        let dir = TemporaryDirectory()
        try fillHome(dir.home, count: 2)
        let path = dir.home.databaseURL.path
        // As root no permission applies: the commands run as `nobody`, for whom root's 0700 home is closed. As any
        // other user the home is closed to its owner too (mode 0).
        let asRoot = geteuid() == 0
        var prefix: [String] = []
        if asRoot {
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv is needed to drop root")
            let binary = dir.url.appendingPathComponent("recipes").path
            if link(builtProduct("recipes").path, binary) != 0 {
                try FileManager.default.copyItem(atPath: builtProduct("recipes").path, toPath: binary)
            }
            prefix = ["--reuid=65534", "--regid=65534", "--clear-groups", binary]
            chmod(dir.url.path, 0o755)
            chmod(dir.homePath, 0o700)
        } else {
            chmod(dir.homePath, 0)
        }
        defer { chmod(dir.homePath, 0o700) }
        for arguments in [["list"], ["status"], ["status", "--json"], ["show", "1"], ["search", "recipe"], ["edit"]] {
            let result = try runRecipes(prefix + arguments + ["--home", dir.homePath], input: "list\n",
                                        executable: asRoot ? URL(fileURLWithPath: "/usr/bin/setpriv") : nil)
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.stderr.contains("cannot open \(path): Permission denied"), "\(arguments): \(result)")
            #expect(!result.stdout.contains("no recipes yet") && !result.stdout.contains("[]"), "\(arguments): \(result)")
        }
    }
}
