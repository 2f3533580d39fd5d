import Foundation
import RecipesTestSupport
import Testing

@Suite("The REPL's background sync on a terminal, against a real recipes-server")
struct ReplJobsTests {
    @Test("sync & returns the prompt: job lines arrive above it, commands run meanwhile, cancel reaches one recipe of the job, leaving asks")
    func backgroundSyncKeepsThePromptUsable() throws {
        let client = Client()
        try client.createRecipes(2, imageSize: 64 * 1024)
        let server = try client.startServer(faults: ["PUT /v1/images/*: stall"])
        defer { server.stop() }

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pty_repl_jobs.py").path
        let session = try client.runPython(script)
        let output = session.stdout
        for marker in ["COMPLETION-LISTS-TITLES", "STARTED", "JOB-LINE", "LIST-WHILE-SYNCING", "JOBS", "CANCELLED-ONE",
                       "STOPPING", "FINISHED", "ASKED-ON-CTRL-D", "ASKED-ON-QUIT"] {
            #expect(output.contains("\(marker) yes"), "\(marker): \(output)")
        }
        #expect(output.contains("1  Recipe 1") && output.contains("2  Recipe 2"), "ids listed with titles: \(output)")
        #expect(output.contains("cancelled recipe 1: its upload in this process stopped"), "\(output)")
        #expect(output.hasSuffix("EXIT 0\n"), "the REPL ends normally after `quit` and y: \(output)")
        let seconds = output.split(separator: "\n").first { $0.hasPrefix("CANCEL-SECONDS ") }
            .flatMap { Double($0.dropFirst("CANCEL-SECONDS ".count)) }
        #expect((seconds ?? 99) <= stopsAtOnce, "cancel returned after \(seconds ?? -1) s: \(output)")

        // Recipe 1 was cancelled while its image upload was in flight (the job's line for it said "uploading"): it is
        // `cancelled`, recipe 2 (stopped with the job) is pending again, no lease is left, and the server has neither
        // image nor recipe.
        #expect(output.contains("[1] #1 Recipe 1: image: uploading"), "\(output)")
        let rows = try client.rows()
        #expect(rows.map(\.state) == ["cancelled", "pending"], "\(rows.map(\.state))")
        #expect(rows.allSatisfy { $0.leaseOwner == nil && $0.syncedRevision == 0 })
        #expect(server.storedImageFiles().isEmpty)
        #expect(try server.storedRecipes().isEmpty, "no recipe JSON went without its image")
    }

    @Test("a background sync that ends while the prompt waits leaves one prompt: its last lines come above it, the prompt is not drawn twice")
    func jobEndKeepsOnePrompt() throws {
        let client = Client()
        let server = try client.startServer()
        defer { server.stop() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pty_repl_job_ends.py").path
        let session = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"), [script, builtProduct("recipes").path, client.homePath, "8"],
            environment: client.environment
        ).result(timeout: 120)
        let screen = session.stdout
        #expect(screen.components(separatedBy: "] finished: sync:").count == 9, "eight jobs ended: \(screen)")
        #expect(!screen.contains("recipes> recipes> "), "a wake that found its lines printed already redrew the prompt: \(screen)")
        #expect(screen.hasSuffix("EXIT 0\n"))
    }
}
