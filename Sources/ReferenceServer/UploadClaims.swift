/// Who is writing each partial upload: at most one request per image at a time.
///
/// The latest append wins, as the IETF draft "Resumable Uploads for HTTP" recommends: a client that lost its
/// connection (or believes it did) resumes at once, while the server may still be reading the old request. A `PATCH`
/// therefore interrupts the request holding its image (closing that connection), waits until it has kept what it
/// received, then goes on from the offset that leaves. Keeping an interrupted `PUT` waits without interrupting.
actor UploadClaims {
    private struct Holder {
        let id: UInt64
        /// Ends the holder's request (closes its connection), or nil when it must be waited for.
        let interrupt: (@Sendable () -> Void)?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private var holders: [String: Holder] = [:]
    private var lastID: UInt64 = 0

    /// Waits until no request holds `sha256` (asking the holder to stop when `superseding`), then holds it; `interrupt`
    /// is how a later request may end this one.
    func claim(_ sha256: String, superseding: Bool, interrupt: (@Sendable () -> Void)?) async -> UInt64 {
        while let holder = holders[sha256] {
            if superseding { holder.interrupt?() }
            await withCheckedContinuation { continuation in holders[sha256]?.waiters.append(continuation) }
        }
        lastID += 1
        holders[sha256] = Holder(id: lastID, interrupt: interrupt)
        return lastID
    }

    /// Lets go of `sha256` held as `id`, and wakes those waiting for it.
    func release(_ sha256: String, id: UInt64) {
        guard let holder = holders[sha256], holder.id == id else { return }
        holders[sha256] = nil
        for waiter in holder.waiters { waiter.resume() }
    }

    /// Whether a request holds `sha256` now.
    func isHeld(_ sha256: String) -> Bool { holders[sha256] != nil }

    /// Runs `body` holding `sha256` (see `claim`), and lets go of it however `body` ends.
    nonisolated func withClaim<T: Sendable>(_ sha256: String, superseding: Bool, interrupt: (@Sendable () -> Void)? = nil,
                                            _ body: @Sendable () async throws -> T) async throws -> T {
        let id = await claim(sha256, superseding: superseding, interrupt: interrupt)
        do {
            let result = try await body()
            await release(sha256, id: id)
            return result
        } catch {
            await release(sha256, id: id)
            throw error
        }
    }
}
