import Foundation
import HTTPTestSupport
import Locking
import Testing
import Transport

/// The thread a piece of code runs on, as a number (to compare across closures).
private func currentThread() -> UInt { UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))) }

@Suite("HTTPClient.taskExecutor: tasks that prefer it run on the transport's own thread")
struct TaskExecutorTests {
    @Test("a task preferring the executor runs on the transport thread before, during (progress) and after a request")
    func runsOnTransportThread() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try TestSupport.makeFile(size: 1 << 20, in: directory)
        let server = try LoopbackHTTPServer { _ in .respond(status: 201, body: Data("{}".utf8)) }
        defer { server.stop() }
        let client = try TestSupport.client()
        let progressThreads = Locked<Set<UInt>>([])
        let (before, after, status) = try await Task(executorPreference: client.taskExecutor) {
            let before = currentThread()
            let response = try await client.send(
                HTTPRequest(method: .put, url: server.baseURL + "/v1/images/x", body: .file(path: file.path, contentType: "image/png")),
                progress: { _ in progressThreads.withLock { _ = $0.insert(currentThread()) } })
            return (before, currentThread(), response.status)
        }.value
        #expect(status == 201)
        let during = progressThreads.withLock { $0 }
        #expect(during == [before], "progress is reported on the transport thread, the one the task runs on")
        #expect(after == before, "the answer resumes the task on the same thread")
        #expect(before != currentThread(), "the test itself does not run there")
    }

    @Test("many tasks on the executor, each sending requests in turn, all finish (the loop runs its own callers)")
    func manyTasksAllFinish() async throws {
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        let client = try TestSupport.client(maxConcurrentTransfers: 2)
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for task in 0..<20 {
                group.addTask(executorPreference: client.taskExecutor) {
                    var statuses: [Int] = []
                    for request in 0..<3 {
                        let response = try await client.send(
                            HTTPRequest(method: .get, url: server.baseURL + "/v1/t\(task)/r\(request)"))
                        statuses.append(response.status)
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(statuses.count == 60)
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(server.received.count == 60)
    }

    @Test("a job queued while a transfer is stalled runs without waiting for that transfer, and can cancel it")
    func wakesForJobs() async throws {
        let server = try LoopbackHTTPServer { _ in .stallAfterBody }
        defer { server.stop() }
        let client = try TestSupport.client()
        let stalled = Task { try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/v1/health")) }
        #expect(await server.wait { $0.received.count == 1 })
        try await Task.sleep(for: .milliseconds(50))  // the loop now sleeps in curl_multi_poll (up to 1 s)
        // The transfer never ends by itself (the server stalls), so the job's running at all proves it did not wait
        // for the transfer; how soon it runs is a figure of `TransportBenchmark cancel-latency` (BENCHMARKS.md), not
        // a bound a busy machine could break.
        await Task(executorPreference: client.taskExecutor) { stalled.cancel() }.value
        #expect((await stalled.result).failureKind == .cancelled)
        #expect(server.received.count == 1, "the stalled request was the only one sent")
    }

    @Test("once the client is gone, tasks that still prefer its executor go on running elsewhere")
    func outlivesClient() async throws {
        var client: HTTPClient? = try TestSupport.client()
        let executor = try #require(client?.taskExecutor)
        client = nil
        try await Task.sleep(for: .milliseconds(50))  // the loop's thread has ended
        let value = await Task(executorPreference: executor) { () async -> Int in
            await Task.yield()
            return 42
        }.value
        #expect(value == 42)
    }
}
