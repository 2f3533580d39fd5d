import Foundation

/// The arguments this process was started with, also when a library loaded before `main` moved the environment.
///
/// Swift's runtime on Linux finds `argv` by walking back from `environ`, which points where the kernel left the
/// arguments only until something calls `setenv` before `main`: libfaketime's constructor does (it records
/// `FAKETIME_SHARED` for the processes it starts), and the runtime then found no arguments at all, so every command
/// run under `LD_PRELOAD=libfaketime.so.1` printed the help. The kernel's own record of what was executed,
/// `/proc/self/cmdline`, does not move with the environment.
public enum ProcessArguments {
    /// `CommandLine.arguments`, or the kernel's record when the runtime found none (an executed program always has
    /// at least its name, so none means they were not found).
    public static func current() -> [String] {
        let found = CommandLine.arguments
        guard found.isEmpty else { return found }
        return parse(cmdline: FileManager.default.contents(atPath: "/proc/self/cmdline") ?? Data())
    }

    /// The arguments a `/proc/<pid>/cmdline` holds: each one ends with a NUL byte (an empty argument is just its
    /// NUL); bytes that are not UTF-8 are repaired as `CommandLine.arguments` repairs them.
    public static func parse(cmdline: Data) -> [String] {
        guard !cmdline.isEmpty else { return [] }
        var parts = cmdline.split(separator: 0, omittingEmptySubsequences: false)
        if cmdline.last == 0 { parts.removeLast() }
        return parts.map { String(decoding: $0, as: UTF8.self) }
    }
}
