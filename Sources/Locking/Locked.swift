#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the lock every target of the package uses for shared mutable state. It is
/// used like `Synchronization.Mutex` (`withLock`), without `Mutex`'s non-copyable values and `sending` checks.
///
/// Why not `Mutex`: on Linux its contended path waits on a futex inside the uninstrumented Swift runtime, so
/// ThreadSanitizer cannot see that lock's ordering and reports every contended critical section as a race, which
/// makes `swift test --sanitize=thread` useless. ThreadSanitizer intercepts `pthread_mutex_lock`, so with this lock
/// its reports are real. Value and mutex share one allocation. Not recursive: no holder calls back into code that takes
/// the same lock. Guard a value, not nothing: ThreadSanitizer reports the exclusive access to an empty `()` value as a
/// race with the unlocked read that finds it (a zero-size value has no address of its own); a counter does.
// Public with an inlinable `init` and `withLock` (not `package`, whose bodies the compiler does not inline into other
// modules): each use is then specialised for its value in the caller's module instead of running generic code.
public struct Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: the value is only read or written between `pthread_mutex_lock` and
    // `pthread_mutex_unlock` of the mutex stored beside it, which is never exposed. `Value` need not be Sendable (the
    // engine's queue state holds non-Sendable bookkeeping); as `Mutex` enforces with `sending`, a caller keeps such a
    // value inside `withLock` and takes out only Sendable parts or copies.
    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    @usableFromInline
    let storage: Storage

    /// Creates the lock around `value`.
    @inlinable
    public init(_ value: consuming Value) {
        // Moved into the buffer rather than copied: for a large value a copy retains every field.
        var pending: Value? = consume value
        let buffer = Storage.create(minimumCapacity: 1) { _ in pending.take()! }
        storage = unsafeDowncast(buffer, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            #if canImport(Glibc)
            // A copy of a mutex initialised once and never locked: in glibc a mutex is plain data, and a fresh one
            // is exactly what `pthread_mutex_init` writes (the same as a static initialiser), so a new lock (one per
            // driver task, for example) costs one store instead of four library calls. ThreadSanitizer treats it like
            // a statically initialised mutex.
            mutex.initialize(to: adaptiveMutexTemplate)
            #else
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, nil)
            precondition(result == 0, "pthread_mutex_init failed with \(result)")
            #endif
        }
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

#if canImport(Glibc)
/// An initialised, never locked, adaptive mutex that `Locked` copies: a contended lock spins briefly before sleeping in
/// the kernel. The engine's and the transport's critical sections are short, so a waiter usually gets the lock while
/// spinning instead of paying two context switches (the outputs that hold theirs across a `write(2)` are rarely
/// contended).
@usableFromInline
let adaptiveMutexTemplate: pthread_mutex_t = {
    var mutex = pthread_mutex_t()
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
    let result = pthread_mutex_init(&mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
    precondition(result == 0, "pthread_mutex_init failed with \(result)")
    return mutex
}()
#endif
