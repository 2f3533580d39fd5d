import Testing
@testable import OperationEngine

@Suite("Ready lines (pure)")
struct ReadyLinesTests {
    @Test("higher priority first, then first-come within a priority")
    func priorityThenFirstCome() {
        var ready = ReadyLines<String>()
        ready.insert("n1", priority: 0)
        ready.insert("l1", priority: -100)
        ready.insert("h1", priority: 100)
        ready.insert("n2", priority: 0)
        ready.insert("h2", priority: 100)
        ready.insert("m1", priority: 50)
        var order: [String] = []
        while let next = ready.popMax() { order.append(next) }
        #expect(order == ["h1", "h2", "m1", "n1", "n2", "l1"])
        #expect(ready.isEmpty)
    }

    @Test("a priority that empties and comes back keeps its place")
    func priorityComesBack() {
        var ready = ReadyLines<Int>()
        ready.insert(1, priority: 0)
        #expect(ready.popMax() == 1)
        #expect(ready.isEmpty)
        ready.insert(2, priority: 0)
        ready.insert(3, priority: 5)
        ready.insert(4, priority: 0)
        #expect(ready.popMax() == 3)
        #expect(ready.popMax() == 2)
        #expect(ready.popMax() == 4)
        #expect(ready.popMax() == nil)
    }
}

@Suite("Procedure configuration")
struct ProcedureConfigurationTests {
    @Test("conditions are given back as configured, before any added one, with the implicit NoFailedDependencies last")
    func conditionsKept() {
        let procedure = Procedure<Void>(name: "p", conditions: [MutualExclusion("recipe:1")]) { _ in }
        #expect(procedure.exclusivityKeys == ["recipe:1"])
        procedure.addCondition(MutualExclusion("recipe:2"))
        #expect(procedure.exclusivityKeys == ["recipe:1", "recipe:2"])
        #expect(procedure.conditions.count == 3)   // the two exclusions and the implicit NoFailedDependencies
        #expect((procedure.conditions.first as? MutualExclusion)?.keys == ["recipe:1"])
        #expect(procedure.conditions.last is NoFailedDependencies)
        let several = Procedure<Void>(name: "p", conditions: [MutualExclusion("a", "b", "a")]) { _ in }
        #expect(several.exclusivityKeys == ["a", "b"])
        let none = Procedure<Void>(name: "p", cancelsOnDependencyFailure: false) { _ in }
        #expect(none.conditions.isEmpty)
    }

    @Test("retry policies and previous attempts are read back intact")
    func retryPolicies() {
        let byDefault = Procedure<Void>(name: "p") { _ in }
        let standard = Procedure<Void>(name: "p", retry: .standard) { _ in }
        let custom = Procedure<Void>(name: "p", retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5))) { _ in }
        #expect(byDefault.retryPolicy.maxAttempts == 1)
        #expect(standard.retryPolicy.maxAttempts == 8)
        #expect(standard.retryPolicy.maxRetryAfter == .seconds(86_400))
        #expect(custom.retryPolicy.maxAttempts == 3)
        #expect(custom.retryPolicy.baseDelay == .milliseconds(5))
        #expect(Procedure<Void>(name: "p", previousAttempts: 2) { _ in }.previousAttempts == 2)
        #expect(Procedure<Void>(name: "p", previousAttempts: 2) { _ in }.attempt == 2)
    }

    @Test("outputs are read back, Void and optional ones included")
    func outputs() async throws {
        let queue = ProcedureQueue(maxConcurrentProcedures: 2)
        let void = Procedure<Void>(name: "void") { _ in }
        let number = Procedure<Int>(name: "number") { _ in 42 }
        let text = Procedure<String?>(name: "text") { _ in nil }
        queue.add([void.erased, number.erased, text.erased])
        await queue.waitUntilAllFinished()
        try await void.value()
        #expect(try await number.value() == 42)
        #expect(number.anyOutput as? Int == 42)
        #expect(text.outcome?.isSuccess == true)
        #expect(void.anyOutput is Void)
    }
}
