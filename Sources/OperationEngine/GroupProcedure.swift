/// A procedure made of child procedures (the seeds' `GroupOperation`): when it runs, it adds its children to its
/// queue and finishes when they all have.
///
/// The group's conditions hold for the whole group: a `MutualExclusion` key is held from before the first child
/// starts until after the last one has finished, so no other procedure on that key runs in between. The children keep
/// their own conditions, retry policies, observers and dependencies among themselves, and run under the queue's
/// concurrency bound (the group itself takes no slot). Cancelling the group cancels its children; a child that fails
/// cancels its dependents through `NoFailedDependencies`, as anywhere. The group's outcome is its first child's, in
/// dependency order, that did not succeed (`ProcedureOutcome.ofGroup`), or `succeeded`; its output is `output`'s.
///
/// ```swift
/// let key = MutualExclusion("document:\(id)")
/// let upload = Procedure<URL>(name: "attachment", retry: .standard) { _ in try await storage.put(file) }
/// let publish = Procedure<Int>(name: "document", input: upload, retry: .standard, continuesAttempts: true) { url, _ in
///     try await api.publish(document, attachment: url)
/// }
/// let group = GroupProcedure(name: "publish", conditions: [key], children: [upload.erased, publish.erased], output: publish)
/// queue.add(group)
/// let revision = try await group.value()
/// ```
///
/// A child must not hold one of the group's exclusivity keys itself: it would wait for the group, which waits for it.
/// A group that finishes without starting (cancelled, a condition or a dependency failed) cancels its children with
/// that reason and adds them to its queue, so that each of them still finishes exactly once.
public final class GroupProcedure<Output: Sendable>: Procedure<Output>, @unchecked Sendable {
    // @unchecked Sendable (restated from `AnyProcedure`): the properties added here are `let`s of Sendable types.

    /// The children, in dependency order.
    public let children: [AnyProcedure]
    /// The child whose output becomes the group's; `nil` for a group without output.
    private let outputChild: AnyProcedure?

    /// Creates a group of `children` whose output is that of `output`, one of them.
    ///
    /// - Parameters:
    ///   - name: for messages and events.
    ///   - priority: among procedures whose conditions the queue evaluates (the children have their own).
    ///   - conditions: what must hold before the first child starts, and is held until the last one has finished.
    ///   - tags: labels carried into the group's events.
    ///   - cancelsOnDependencyFailure: adds `NoFailedDependencies` for the group's own dependencies (the default).
    ///   - children: the procedures it runs, not added to any queue, with their dependencies among themselves.
    ///   - output: the child whose output is the group's.
    public init(
        name: String,
        priority: ProcedurePriority = .normal,
        conditions: [any ProcedureCondition] = [],
        tags: [String: String] = [:],
        cancelsOnDependencyFailure: Bool = true,
        children: [AnyProcedure],
        output: Procedure<Output>
    ) {
        precondition(children.contains { $0 === output }, "The output of group ‘\(name)’ must be one of its children.")
        self.children = ProcedureQueue.dependencyOrder(children)
        self.outputChild = output
        super.init(
            groupNamed: name, priority: priority, conditions: conditions, tags: tags,
            cancelsOnDependencyFailure: cancelsOnDependencyFailure, children: self.children)
    }

    /// Creates a group of `children` without output.
    public init(
        name: String,
        priority: ProcedurePriority = .normal,
        conditions: [any ProcedureCondition] = [],
        tags: [String: String] = [:],
        cancelsOnDependencyFailure: Bool = true,
        children: [AnyProcedure]
    ) where Output == Void {
        self.children = ProcedureQueue.dependencyOrder(children)
        self.outputChild = nil
        super.init(
            groupNamed: name, priority: priority, conditions: conditions, tags: tags,
            cancelsOnDependencyFailure: cancelsOnDependencyFailure, children: self.children)
    }

    override func outputOfChildren() -> (any Sendable)? {
        guard let outputChild else { return () }
        return outputChild.anyOutput
    }
}

extension ProcedureOutcome {
    /// The outcome of a group whose children, in dependency order, finished with `children`: the first that did not
    /// succeed (the cause: a failed first step comes before the dependents it cancelled), or `succeeded`.
    public static func ofGroup(_ children: [ProcedureOutcome]) -> ProcedureOutcome {
        children.first { !$0.isSuccess } ?? .succeeded
    }
}
