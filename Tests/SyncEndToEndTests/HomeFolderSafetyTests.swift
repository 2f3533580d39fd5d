import Foundation
import RecipesTestSupport
import Testing

/// Garbage collection deletes only what `recipes` wrote, and never through a symbolic link (issue 19, item 2).
@Suite("Sync never deletes a file it did not write, nor follows a link out of the home")
struct HomeFolderSafetyTests {
    /// A folder beside the home, as `~/Pictures` would be, holding files a user cares about: among them one named
    /// exactly like a media copy and one like a temporary file, which a collection must not take either.
    func pictures(in client: Client) throws -> (url: URL, files: [String: Data]) {
        let url = client.folder.appendingPathComponent("Pictures")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let files: [String: Data] = [
            "holiday.jpg": Data("a holiday".utf8),
            String(repeating: "ab", count: 32) + ".png": Data("named like a copy".utf8),
            ".tmp-" + UUID().uuidString.lowercased(): Data("named like a temporary file".utf8),
        ]
        for (name, data) in files { try data.write(to: url.appendingPathComponent(name)) }
        return (url, files)
    }

    /// Replaces `<home>/<folder>` with a symbolic link to `target`.
    func link(_ folder: String, of client: Client, to target: URL) throws {
        let path = client.homeURL.appendingPathComponent(folder).path
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target.path)
    }

    func expectUntouched(_ pictures: (url: URL, files: [String: Data]), sourceLocation: SourceLocation = #_sourceLocation) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pictures.url.path)) ?? []
        #expect(Set(names) == Set(pictures.files.keys), "the linked folder lost files: \(names)", sourceLocation: sourceLocation)
        for (name, data) in pictures.files {
            #expect(fileBytes(pictures.url.appendingPathComponent(name).path) == data, "\(name) changed",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("media/ or outbox/ a link to a folder of the user's: sync, offline or online, refuses with a message naming the link, and every file there survives")
    func linkedFoldersAreRefused() throws {
        for folder in ["media", "outbox"] {
            let client = Client(serverURL: "http://127.0.0.1:\(try closedPort())")
            try client.createRecipes(1, imageSize: 2048)
            let pictures = try pictures(in: client)
            try link(folder, of: client, to: pictures.url)
            let linkPath = client.homeURL.appendingPathComponent(folder).path

            for arguments in [["sync"], ["sync", "--background"], ["sync", "1"]] {
                let offline = try client.run(arguments)
                #expect(offline.status == 1, "\(folder) \(arguments): \(offline)")
                #expect(offline.stderr.contains("\(linkPath) is a symbolic link to \(pictures.url.path)"), "\(offline)")
                #expect(offline.stderr.contains("remove the link"), "\(offline)")
                expectUntouched(pictures)
            }
            let server = try client.startServer()
            defer { server.stop() }
            client.serverURL = server.url
            let online = try client.run(["sync"])
            #expect(online.status == 1, "\(folder) online: \(online)")
            #expect(online.stderr.contains("\(linkPath) is a symbolic link"), "\(online)")
            #expect(try server.storedRecipes().isEmpty, "nothing is sent from a home that is refused")
            expectUntouched(pictures)
            // Editing is refused alike; reading is not, and status says what is wrong, once.
            let edit = try client.run(["edit"], input: "title 1 Changed\n")
            #expect(edit.status == 1 && edit.stderr.contains("is a symbolic link"), "\(edit)")
            let status = try client.run(["status"])
            #expect(status.status == 0, "\(status)")
            #expect(status.stdout.components(separatedBy: "\(folder)/ is a symbolic link to \(pictures.url.path)").count == 2,
                    "\(status)")
            expectUntouched(pictures)
        }
    }

    @Test("files recipes did not write survive a sync in media/ and outbox/, its own leftovers are collected, and status names the others once")
    func foreignFilesSurvive() throws {
        let client = Client()
        try client.createRecipes(2, imageSize: 2048)
        let server = try client.startServer()
        defer { server.stop() }
        client.serverURL = server.url
        let media = client.homeURL.appendingPathComponent("media")
        let outbox = client.homeURL.appendingPathComponent("outbox")
        let foreign: [URL: Data] = [
            media.appendingPathComponent("holiday.jpg"): Data("mine".utf8),
            media.appendingPathComponent(String(repeating: "c", count: 64) + ".png.bak"): Data("a backup".utf8),
            outbox.appendingPathComponent("notes.txt"): Data("notes".utf8),
            outbox.appendingPathComponent("draft.json"): Data("{}".utf8),
        ]
        for (url, data) in foreign { try data.write(to: url) }
        // recipes' own leftovers: an unreferenced copy, a stale revision's payload, a dead writer's temporary file.
        let ownLeftovers = [
            media.appendingPathComponent(String(repeating: "d", count: 64) + ".jpg"),
            outbox.appendingPathComponent(UUID().uuidString.lowercased() + "-3.json"),
            outbox.appendingPathComponent(".tmp-2147483646:1@" + UUID().uuidString.lowercased()),
        ]
        for url in ownLeftovers { try Data("left behind".utf8).write(to: url) }

        let sync = try client.run(["sync"])
        #expect(sync.status == 0, "\(sync)")
        #expect(try server.storedRecipes().count == 2)
        for (url, data) in foreign { #expect(fileBytes(url.path) == data, "\(url.lastPathComponent) was not left alone") }
        for url in ownLeftovers { #expect(!FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent) stayed") }

        let status = try client.run(["status"])
        #expect(status.status == 0)
        #expect(status.stdout.hasSuffix("""
            note: media/ holds 2 files recipes did not write (left alone): \(String(repeating: "c", count: 64)).png.bak, holiday.jpg
            note: outbox/ holds 2 files recipes did not write (left alone): draft.json, notes.txt

            """), "\(status)")
        // --json keeps its array as it is and says it on stderr.
        let json = try client.run(["status", "--json"])
        #expect(json.status == 0)
        #expect((try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8))) is [[String: Any]], "\(json)")
        #expect(json.stderr.components(separatedBy: "recipes: note: ").count == 3, "\(json)")
        // The idle cron run is not kept busy by them: it ends without opening the store.
        let database = client.homeURL.appendingPathComponent("recipes.sqlite3").path
        let before = fileBytes(database)
        let idle = try client.run(["sync", "--background"])
        #expect(idle.status == 0 && idle.stdout.isEmpty && idle.stderr.isEmpty, "\(idle)")
        #expect(fileBytes(database) == before)
    }
}
