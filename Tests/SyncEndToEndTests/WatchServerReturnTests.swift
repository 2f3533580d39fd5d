import Foundation
import RecipesTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("sync --watch and a server that goes and comes back while this machine's network stays as it was", .serialized)
struct WatchServerReturnTests {
    @Test("the server stopped, an edit, the server started again: the edit arrives with no other edit or SIGHUP, found by connect probes (no pass each), and `status` says when the watcher asks again")
    func serverComesBack() throws {
        let here = Client()
        let server = try here.startServer()
        let watcher = try startWatcher(here)
        let status = try here.run(["status"])
        #expect(status.stdout.contains("watcher (pid \(watcher.pid)): watching; the server answers\n"), "\(status)")

        server.stop()
        #expect(waitUntil(timeout: 60) { !watchNotices(watcher, "offline").isEmpty }, "\(watcher.stdout)")
        try here.edit(["new \"Soup\""])
        #expect(waitUntil(timeout: 60) {
            jsonEvents(watcher.stdout).contains { $0["event"] as? String == "offline" && $0["title"] as? String == "Soup" }
        }, "\(watcher.stdout)")
        var waiting = ToolResult(status: -1, stdout: "", stderr: "", seconds: 0)
        #expect(try waitUntil(timeout: 60) {
            waiting = try here.run(["status"])
            return waiting.stdout.contains("; it tries again at ")
        }, "\(waiting)")
        #expect(waiting.stdout.contains("watcher (pid \(watcher.pid)): the server has not answered since "), "\(waiting)")
        let jsonStatus = try here.run(["status", "--json"])
        #expect(jsonStatus.stderr.contains("recipes: note: watcher (pid \(watcher.pid)): the server has not answered"),
                "\(jsonStatus)")

        // Several probes come due over these seconds (2 s, 2 s, 4 s…): each is a connect, not a pass.
        let passesWhileGone = watchNotices(watcher, "sync").count
        pause(7)
        #expect(watchNotices(watcher, "sync").count == passesWhileGone, "\(watcher.stdout)")
        #expect(try server.storedRecipes().isEmpty)

        let again = try ServerProcess(
            data: server.dataDirectory, requestLog: here.folder.appendingPathComponent("again.log"), port: server.port)
        #expect(waitUntil(timeout: 60) { (try? again.storedRecipes().map(\.name)) == ["Soup"] },
                "the edit did not arrive: \(watcher.stdout) \(watcher.stderr)")
        let after = watchNotices(watcher, "sync").dropFirst(passesWhileGone)
        #expect(after.first?["reason"] as? String == "network", "\(watcher.stdout)")
        #expect(waitUntil(timeout: 60) { !watchNotices(watcher, "online").isEmpty }, "\(watcher.stdout)")
        var back = ToolResult(status: -1, stdout: "", stderr: "", seconds: 0)
        #expect(try waitUntil(timeout: 60) {
            back = try here.run(["status"])
            return back.stdout.contains("watcher (pid \(watcher.pid)): watching; the server answers\n")
        }, "\(back)")

        watcher.send(SIGTERM)
        #expect(watcher.result(timeout: 60).status == 0)
        #expect(!FileManager.default.fileExists(atPath: here.homeURL.appendingPathComponent("watch.status").path))
        let stopped = try here.run(["status"])
        #expect(!stopped.stdout.contains("watcher (pid"), "\(stopped)")
    }
}
