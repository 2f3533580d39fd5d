/// What the work of a running procedure can do: register cancel handlers, report progress, produce procedures,
/// and read its dependencies' outputs.
public struct ProcedureContext: Sendable {
    /// The running procedure.
    public let procedure: AnyProcedure
    /// The queue running it.
    public let queue: ProcedureQueue

    /// The number of this attempt, counting earlier runs (1-based).
    public var attempt: Int { procedure.attempt }
    /// Whether cancellation was requested.
    public var isCancelled: Bool { procedure.isCancelled }

    /// Registers `handler` to run as soon as cancellation is requested (at once if it already was), for work that
    /// is blocked somewhere Swift task cancellation does not reach. Handlers are dropped after each attempt.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        procedure.addCancelHandler(handler)
    }

    /// Reports progress to observers and event streams.
    public func reportProgress(completed: Int64, total: Int64?) {
        queue.emit(.progress(procedure.info, completed: completed, total: total), for: procedure)
    }

    /// Adds `child` to the queue and reports it as produced by this procedure.
    ///
    /// Do not wait for a produced procedure that needs one of this procedure's exclusivity keys: it cannot start
    /// before this one finishes.
    public func produce(_ child: AnyProcedure) {
        queue.add(child)
        queue.emit(.produced(procedure.info, child: child.info), for: procedure, child: child)
    }

    /// Adds `child` to the queue and reports it as produced by this procedure.
    public func produce<T>(_ child: Procedure<T>) { produce(child.erased) }

    /// The output of a dependency that has succeeded.
    public func output<T>(of dependency: Procedure<T>) throws -> T {
        guard let value = dependency.output else {
            throw EngineError.missingInput(procedure: procedure.name, dependency: dependency.name)
        }
        return value
    }
}
