import Foundation

/// The path of the installed `recipes` that a unit runs: a path that stays when the build folder is cleaned.
enum InstalledExecutable {
    /// The stable path of this `recipes`: the first `recipes` on `PATH` that is this very executable (its name as
    /// found there, so that a symbolic link such as `/usr/local/bin/recipes` survives an upgrade that moves its
    /// target), else the running executable when it is outside a build folder; throws, saying how to install it,
    /// when it runs from a build folder that `make clean` would delete.
    static func path(environment: [String: String]) throws(CommandLineError) -> String {
        let running = try CrontabEntry.runningExecutable()
        let resolvedRunning = URL(fileURLWithPath: running).resolvingSymlinksInPath().path
        let search = environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin:/bin"
        for folder in search.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = String(folder) + "/recipes"
            guard FileManager.default.isExecutableFile(atPath: candidate), !isInBuildFolder(candidate),
                URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path == resolvedRunning
            else { continue }
            return candidate
        }
        guard !isInBuildFolder(running) else {
            throw CommandLineError(
                "this recipes runs from a build folder (\(running)), which `make clean` deletes; install it first "
                    + "(`make install` puts it in /usr/local/bin), then run the installed one")
        }
        return running
    }

    /// Whether `path` lies in a SwiftPM build folder (a component named `.build`, or `.build-…` as `make tsan` makes).
    static func isInBuildFolder(_ path: String) -> Bool {
        path.split(separator: "/").contains { $0 == ".build" || $0.hasPrefix(".build-") }
    }
}
