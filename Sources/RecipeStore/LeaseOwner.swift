import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process's identity, `<pid>:<process start time>`: who holds a recipe's upload lease and who writes a temporary
/// file, so that a recycled process id never passes for the process that took the lease or began the file.
///
/// The start time is field 22 of `/proc/<pid>/stat` (clock ticks since boot); it is fixed for a process's life.
public enum LeaseOwner {
    /// The owner string of this process.
    public static let current: String = {
        let pid = getpid()
        return "\(pid):\(startTime(of: pid) ?? 0)"
    }()

    /// Whether the process named by `owner` is still running: its pid exists and started at the recorded time.
    ///
    /// When `/proc` cannot tell (not mounted, an owner string from elsewhere), the owner counts as alive and only
    /// the lease's expiry frees the recipe.
    public static func isAlive(_ owner: String) -> Bool {
        let parts = owner.split(separator: ":")
        guard parts.count == 2, let pid = Int32(parts[0]), pid > 0, let started = UInt64(parts[1]) else { return true }
        if owner == current { return true }
        guard FileManager.default.fileExists(atPath: "/proc/self/stat") else { return true }
        guard let actual = startTime(of: pid) else { return false }  // no such process
        return actual == started
    }

    /// The start time of process `pid` in clock ticks since boot, or nil when it does not exist.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return parseStartTime(stat: text)
    }

    /// Field 22 of a `/proc/<pid>/stat` line. The second field (the command name, in parentheses) may contain
    /// spaces and parentheses, so fields are counted after its last `)`.
    static func parseStartTime(stat: String) -> UInt64? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let rest = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // rest[0] is field 3 (state); field 22 is rest[19].
        guard rest.count > 19 else { return nil }
        return UInt64(rest[19])
    }
}
