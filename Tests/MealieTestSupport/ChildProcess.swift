import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process run to its end with its standard output captured: `posix_spawn` and `waitpid`, not Foundation's
/// `Process`, whose wait never returned for `mealie-up.sh` when started from a test's task (the child stayed a
/// zombie, unreaped).
///
/// The child starts with no signal blocked: a process spawned from one of the concurrency runtime's threads would
/// inherit its mask, in which SIGTERM is blocked, and so would the Mealie it starts, which then ignores the SIGTERM
/// that should stop it.
public enum ChildProcess {
    /// A `bash -c` program that closes every descriptor above 2 it inherited, then runs the script `$0`: this test
    /// process holds sockets of other tests (a loopback server's accepted connections are not close-on-exec), and a
    /// Mealie that inherited one would keep that connection open after the test closed it, its client waiting for an
    /// end that never comes.
    public static let closingInheritedDescriptors = #"""
        for f in /proc/self/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null; fi; done; exec /bin/bash "$0"
        """#

    /// Runs `arguments` (the first is the executable's path) with this process's environment plus `environment`,
    /// standard input from `/dev/null`, standard error appended to `standardErrorPath`; its exit status (128 +
    /// signal when a signal ended it) and everything it wrote to standard output.
    public static func run(_ arguments: [String], environment: [String: String], standardErrorPath: String) throws -> (Int32, Data) {
        var descriptors: [Int32] = [0, 0]
        // Close-on-exec at once (Glibc's module has no pipe2), so that no other child started meanwhile keeps the
        // write end, and with it the read below, open.
        guard pipe(&descriptors) == 0 else { throw MealiePeer.PeerError(message: "pipe: errno \(errno)") }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, descriptors[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, standardErrorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        var cArguments = arguments.map { strdup($0) } + [nil]
        var cEnvironment = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, &cArguments, &cEnvironment)
        close(descriptors[1])
        guard spawned == 0 else {
            close(descriptors[0])
            throw MealiePeer.PeerError(message: "cannot start \(arguments[0]): errno \(spawned)")
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptors[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            output.append(contentsOf: buffer[0..<count])
        }
        close(descriptors[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), output)
    }
}
