/// Events: what happens to procedures, delivered to their observers and to the queue's event streams.
extension ProcedureQueue {
    /// The open event streams.
    struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<ProcedureEvent>.Continuation] = [:]
    }

    /// A stream of every event of every procedure added to this queue, from now on.
    public func events() -> AsyncStream<ProcedureEvent> {
        let (stream, continuation) = AsyncStream<ProcedureEvent>.makeStream(bufferingPolicy: .unbounded)
        let token = subscribers.withLock { subscribers in
            subscribers.next += 1
            subscribers.continuations[subscribers.next] = continuation
            subscriberCount.store(subscribers.continuations.count, ordering: .relaxed)
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            subscribers.withLock { subscribers in
                subscribers.continuations.removeValue(forKey: token)
                subscriberCount.store(subscribers.continuations.count, ordering: .relaxed)
            }
        }
        return stream
    }

    /// Whether any event stream is open (read without the lock on every event).
    var hasSubscribers: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

    /// Sends `event` to every stream.
    func broadcast(_ event: ProcedureEvent) {
        guard hasSubscribers else { return }
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    /// Delivers `event` to the procedure's observers and to every stream.
    func emit(_ event: ProcedureEvent, for procedure: AnyProcedure, child: AnyProcedure? = nil) {
        emit(event, for: procedure, observers: procedure.currentObservers, child: child)
    }

    /// Delivers `event` to `observers` and to every stream; the event is only built when someone listens.
    func emit(
        _ event: @autoclosure () -> ProcedureEvent, for procedure: AnyProcedure, observers: [any ProcedureObserver],
        child: AnyProcedure? = nil
    ) {
        guard !observers.isEmpty || hasSubscribers else { return }
        let event = event()
        for observer in observers { observer.receive(event, from: procedure, child: child) }
        broadcast(event)
    }
}
