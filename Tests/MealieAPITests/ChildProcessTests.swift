import Foundation
import MealieTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("ChildProcess: how the tests start mealie-up.sh")
struct ChildProcessTests {
    @Test("Started from a task, the child has no signal blocked (or the Mealie it starts would ignore SIGTERM)")
    func noSignalBlocked() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let (status, output) = try await Task.detached {
            try ChildProcess.run(["/bin/bash", "-c", "grep '^SigBlk' /proc/$$/status"], environment: [:], standardErrorPath: log)
        }.value
        #expect(status == 0)
        #expect(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            == "SigBlk:\t0000000000000000")
    }

    @Test("Through the wrapper, the script inherits no descriptor but 0, 1 and 2 (a test's open socket stays the test's)")
    func noInheritedDescriptor() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("list.sh").path
        // What each of the script's descriptors points to: the held file is told by its path, not by its number (the
        // number the test got, 3 when nothing else was open, is one bash may reuse for a file of its own).
        try "for fd in /proc/$$/fd/*; do readlink \"$fd\" || true; done\n".write(toFile: script, atomically: true, encoding: .utf8)
        let held = open(directory.appendingPathComponent("held").path, O_CREAT | O_WRONLY, 0o600) // not close-on-exec
        #expect(held > 2)
        defer { close(held) }
        let (status, output) = try ChildProcess.run(["/bin/bash", "-c", ChildProcess.closingInheritedDescriptors, script],
                                                    environment: ["X": "1"], standardErrorPath: directory.appendingPathComponent("log").path)
        #expect(status == 0)
        let listed = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        // The file this test holds open (not close-on-exec) is not among the script's; what else bash holds (its pipes,
        // its own script) varies and is not counted.
        #expect(!listed.contains { $0.hasSuffix("/held") }, "\(listed)")
    }
}
