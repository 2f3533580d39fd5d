/// Feeding the queue in windows, so that memory stays flat however much work is waiting in the database.
extension ProcedureQueue {
    /// Repeatedly asks `next` for up to `batch` procedures and adds them, keeping at most `window` unfinished;
    /// stops when `next` returns none. Procedures are dropped by the queue as soon as they finish.
    ///
    /// - Parameters:
    ///   - window: the most unfinished procedures at any time (at least `batch`).
    ///   - batch: how many to ask for at once; defaults to a quarter of the window.
    ///   - next: returns up to its argument procedures, dependencies included; an empty array ends the feed.
    public func feed(
        window: Int,
        batch: Int? = nil,
        next: @Sendable (Int) async throws -> [AnyProcedure]
    ) async throws {
        let batch = max(1, min(batch ?? max(1, window / 4), window))
        let window = max(window, batch)
        while true {
            await waitUntilUnfinished(atMost: window - batch)
            let procedures = try await next(batch)
            if procedures.isEmpty { return }
            add(procedures)
        }
    }
}
