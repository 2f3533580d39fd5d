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
            let result = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
            precondition(result == 0, "pthread_mutex_destroy failed with \(result)")
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
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, MutexAttributes.shared.pointer)
            precondition(result == 0, "pthread_mutex_init failed with \(result)")
        }
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            let locked = pthread_mutex_lock(mutex)
            precondition(locked == 0, "pthread_mutex_lock failed with \(locked)")
            defer {
                let unlocked = pthread_mutex_unlock(mutex)
                precondition(unlocked == 0, "pthread_mutex_unlock failed with \(unlocked)")
            }
            return try body(&value.pointee)
        }
    }
}

/// The attributes every `Locked` mutex is initialised with, made once: on glibc an adaptive mutex (a contended lock
/// spins briefly before sleeping in the kernel; the engine's and the transport's critical sections are short, so a
/// waiter usually gets the lock while spinning instead of paying two context switches), elsewhere the defaults.
/// Each mutex still gets its own `pthread_mutex_init`, so no lock is a byte copy of another.
@usableFromInline
struct MutexAttributes: @unchecked Sendable {
    // @unchecked Sendable: the attributes are written once, inside the lazy initialiser of `shared` (which Swift runs
    // exactly once), and afterwards only read by `pthread_mutex_init`; they are never destroyed or changed.
    @usableFromInline
    let pointer: UnsafeMutablePointer<pthread_mutexattr_t>

    /// The one set of attributes, initialised on first use.
    @usableFromInline
    static let shared: MutexAttributes = {
        let pointer = UnsafeMutablePointer<pthread_mutexattr_t>.allocate(capacity: 1)
        pointer.initialize(to: pthread_mutexattr_t())
        var result = pthread_mutexattr_init(pointer)
        precondition(result == 0, "pthread_mutexattr_init failed with \(result)")
        #if canImport(Glibc)
        result = pthread_mutexattr_settype(pointer, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        precondition(result == 0, "pthread_mutexattr_settype failed with \(result)")
        #endif
        return MutexAttributes(pointer: pointer)
    }()
}
