#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The mutexes that guard procedures' state: a fixed table shared by all procedures, each procedure using the one
/// its identifier selects (lock striping).
///
/// Why not a mutex per procedure: a procedure's state then lives in the procedure object itself, with no second
/// allocation for a lock and its storage, and no mutex to initialise and destroy per procedure — which matters when
/// procedures are created by the hundred thousand. Two procedures that share a stripe only wait for each other during
/// the few instructions of a critical section. The mutexes are plain `pthread_mutex_t`s, so ThreadSanitizer sees
/// them (see `Locked`).
///
/// The rule that makes sharing safe: a thread holding a procedure's lock never takes another procedure's lock, never
/// takes any other lock, never calls out, and never releases anything whose deinitialiser could run someone else's
/// code (bodies, handlers, dependencies are handed out of the critical section and dropped after it).
enum ProcedureLocks {
    /// The number of stripes (a power of two).
    static let count = 512
    /// Bytes between two mutexes: one cache line each, so that neighbouring stripes do not share a line.
    private static let stride = 64

    /// The table, allocated and initialised once and never freed.
    // nonisolated(unsafe): the pointer is written once, by the lazy global initialiser (which runs exactly once, with
    // the needed synchronisation); the memory it points to is only ever used through `pthread_mutex_lock`/`unlock`.
    private nonisolated(unsafe) static let table: UnsafeMutableRawPointer = {
        precondition(MemoryLayout<pthread_mutex_t>.size <= stride)
        let table = UnsafeMutableRawPointer.allocate(byteCount: count * stride, alignment: stride)
        for index in 0..<count {
            let mutex = (table + index * stride).bindMemory(to: pthread_mutex_t.self, capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            #if canImport(Glibc)
            // Adaptive: a contended lock spins briefly before sleeping in the kernel (see `Locked`).
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
            #endif
            let result = pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
            precondition(result == 0, "pthread_mutex_init failed with \(result)")
        }
        return table
    }()

    /// The mutex of the procedure with identifier `id`.
    @inline(__always)
    static func mutex(for id: ProcedureID) -> UnsafeMutablePointer<pthread_mutex_t> {
        (table + Int(truncatingIfNeeded: id.rawValue & UInt64(count - 1)) * stride)
            .assumingMemoryBound(to: pthread_mutex_t.self)
    }
}

/// A procedure's state with its lock, as `procedure.state`: the shape of `Locked`, so that `state.withLock { … }`
/// reads as before.
struct ProcedureStateLock {
    // Unmanaged: this value only lives for the duration of one `procedure.state.withLock { … }` expression, whose
    // caller holds a strong reference to the procedure throughout; a counted reference would add a retain and a
    // release, on a line other threads use, to every lock acquisition.
    let procedure: Unmanaged<AnyProcedure>

    /// Runs `body` with exclusive access to the procedure's state. Follow the rule in `ProcedureLocks`.
    @inline(__always)
    func withLock<Result>(_ body: (inout AnyProcedure.CoreState) throws -> Result) rethrows -> Result {
        try procedure._withUnsafeGuaranteedRef { procedure in
            let mutex = ProcedureLocks.mutex(for: procedure.id)
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&procedure.core)
        }
    }
}
