import Testing
@testable import OperationEngine

@Suite("Dependencies")
struct DependencyTests {
    @Test("the image step's output becomes the JSON step's typed input")
    func typedResultPassing() async throws {
        let queue = ProcedureQueue()
        let image = Procedure<String>(name: "image") { _ in "https://server/v1/images/abc" }
        let json = Procedure<Int>(name: "json", input: image) { url, _ in url.count }
        queue.add(image)
        queue.add(json)
        #expect(try await json.value() == "https://server/v1/images/abc".count)
    }

    @Test("a dependent does not start before its dependency finished")
    func dependentWaits() async throws {
        let queue = ProcedureQueue(maxConcurrentProcedures: 4)
        let order = Recorder<String>()
        let gate = Gate()
        let first = Procedure<Void>(name: "first") { _ in
            try await gate.wait()
            order.append("first")
        }
        let second = Procedure<Void>(name: "second") { _ in order.append("second") }
        second.addDependency(first)
        queue.add(first)
        queue.add(second)
        #expect(second.lifecycle == .pending)
        gate.open()
        await queue.waitUntilAllFinished()
        #expect(order.all == ["first", "second"])
    }

    @Test("a failed dependency cancels the whole chain below it, with the reason")
    func failureCascades() async {
        let queue = ProcedureQueue()
        let ran = Recorder<String>()
        let image = Procedure<String>(name: "image") { _ in throw TestFailure.permanent }
        let json = Procedure<Int>(name: "json", input: image) { _, _ in ran.append("json"); return 1 }
        let cleanup = Procedure<Void>(name: "cleanup") { _ in ran.append("cleanup") }
        cleanup.addDependency(json)
        queue.add([image.erased, json.erased, cleanup.erased])
        await queue.waitUntilAllFinished()
        #expect(ran.count == 0)
        guard case .cancelled(.dependencyFailed(let name, let error))? = json.outcome else {
            Issue.record("json: \(String(describing: json.outcome))")
            return
        }
        #expect(name == "image")
        #expect(error as? TestFailure == .permanent)
        guard case .cancelled(.dependencyCancelled(let upstream))? = cleanup.outcome else {
            Issue.record("cleanup: \(String(describing: cleanup.outcome))")
            return
        }
        #expect(upstream == "json")
    }

    @Test("a procedure that opts out still runs after a failed dependency")
    func optOut() async {
        let queue = ProcedureQueue()
        let failing = Procedure<Void>(name: "failing") { _ in throw TestFailure.permanent }
        let ran = Recorder<Bool>()
        let report = Procedure<Void>(name: "report", cancelsOnDependencyFailure: false) { _ in ran.append(true) }
        report.addDependency(failing)
        queue.add(failing)
        queue.add(report)
        await queue.waitUntilAllFinished()
        #expect(ran.count == 1)
        #expect(report.outcome?.isSuccess == true)
    }

    @Test("a condition's contributed dependency is added and runs first")
    func conditionContributesDependency() async {
        final class LoggedIn: ProcedureCondition {
            let login: Procedure<Void>
            init(login: Procedure<Void>) { self.login = login }
            var requiresEvaluation: Bool { false }
            func dependency(for procedure: AnyProcedure) -> AnyProcedure? { login.erased }
            func evaluate(_ context: ConditionContext) async throws {}
        }
        let order = Recorder<String>()
        let login = Procedure<Void>(name: "login") { _ in order.append("login") }
        let like = Procedure<Void>(name: "like", conditions: [LoggedIn(login: login)]) { _ in order.append("like") }
        let queue = ProcedureQueue()
        queue.add(like)
        await queue.waitUntilAllFinished()
        #expect(order.all == ["login", "like"])
    }
}
