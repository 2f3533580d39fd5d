import Foundation
import RecipesTestSupport
import Testing

/// An offline `recipes sync` ends within a fraction of a second, while libcurl may still be starting up (loaded and
/// initialised on a thread of its own, `HTTPClient.prepare`): the process waits for that start-up before it exits, as
/// exit handlers tearing OpenSSL and libldap down under it crashed the process (exit 139) after its report. The same
/// holds for a run stopped by a set-up mistake while its health ask (beside the pull's first page) is still in a TLS
/// handshake on the transport thread: the run waits for that request before it returns.
@Suite("an offline sync exits with its own status, however early it ends")
struct OfflineExitTests {
    @Test("40 offline syncs in a row each exit 75 with their report, none crashes at exit")
    func offlineSyncsExitCleanly() throws {
        let client = Client(serverURL: "http://127.0.0.1:\(try closedPort())")
        try client.createRecipes(1, imageSize: 1024)
        for run in 1...40 {
            let offline = try client.run(["sync"])
            #expect(offline.status == 75, "run \(run): \(offline)")
            #expect(!offline.stderr.contains("crashed"), "run \(run): \(offline.stderr)")
            if offline.status != 75 { break }
        }
    }

    @Test("40 syncs to https:// on a plain-HTTP server each exit 1 with the set-up mistake, none crashes at exit")
    func tlsMistakeSyncsExitCleanly() throws {
        let client = Client()
        let server = try client.startServer()
        defer { server.stop() }
        client.serverURL = server.url.replacing("http://", with: "https://")
        try client.createRecipes(1, imageSize: 1024)
        for run in 1...40 {
            let stopped = try client.run(["sync", "--background"])
            #expect(stopped.status == 1 && stopped.stderr.contains("answers in plain HTTP"), "run \(run): \(stopped)")
            #expect(!stopped.stderr.contains("crashed"), "run \(run): \(stopped.stderr)")
            if stopped.status != 1 { break }
        }
    }
}
