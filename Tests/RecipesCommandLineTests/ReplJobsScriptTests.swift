import Foundation
import RecipesTestSupport
import Testing

@Suite("The REPL's background sync on a pipe")
struct ReplJobsScriptTests {
    @Test("sync & returns at once; wait reports a job that failed as a failed command; the end of input waits for a running job")
    func backgroundSyncInAScript() throws {
        let dir = TemporaryDirectory()
        let failed = try runRecipes(["edit", "--home", dir.homePath], input: "new A\nsync &\njobs\nwait\nlist\n")
        #expect(failed.status == 1, "\(failed)")
        #expect(failed.stdout.hasPrefix("created 1\n[1] sync runs in the background; `jobs` shows it, `wait` waits for it\n"))
        #expect(failed.stdout.contains("[1] failed: no server to upload to"), "\(failed.stdout)")
        #expect(failed.stdout.hasSuffix("1   pending  1    A\n"), "the commands after wait ran")

        // Nothing listens on port 9: both recipes are offline and the job ends with them waiting; the script's end
        // waits for it (exit 0: waiting is not a failure).
        let waited = try runRecipes(
            ["edit", "--home", dir.homePath], input: "new B\nsync --background\n",
            environment: ["RECIPES_SERVER_URL": "http://127.0.0.1:9"])
        #expect(waited.status == 0, "\(waited)")
        #expect(waited.stderr == "waiting for sync %1 to end before leaving\n")
        #expect(waited.stdout.hasSuffix("""
            [1] offline: nothing answers on 127.0.0.1:9 (connection refused): is the server running, and is the port in server.url the one it listens on?; 2 recipes wait for it, nothing was sent
            [1] finished: sync: 2 waiting, pull stopped: nothing answers on 127.0.0.1:9 (connection refused): is the server running, and is the port in server.url the one it listens on?

            """), "one line for the recipes left offline, not one each: \(waited.stdout)")
        #expect(!waited.stdout.contains("#2 B: offline"))

        let none = try runRecipes(["edit", "--home", dir.homePath], input: "jobs\ncancel %7\nwait\n")
        #expect(none.status == 1)
        #expect(none.stdout == "no background jobs; `sync &` starts one\nno background job running\n", "\(none)")
        #expect(none.stderr == "error: line 2: no background job %7 is running; `jobs` lists them\n")
    }
}
