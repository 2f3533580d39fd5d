/// Where advice is read, so that the command it names can be typed as it stands: at a shell prompt
/// (`recipes sync 3`, `recipes resolve 3 --mine`) or at the REPL's prompt (`sync 3`, `resolve 3 mine`).
public enum CommandDialect: Sendable, Equatable {
    /// A shell: `recipes <command> …` with options.
    case shell
    /// `recipes edit`'s prompt: the command's own words.
    case repl

    /// The command that syncs recipe `id` now (resuming it when cancelled or failed), quoted: `` `recipes sync 3` ``.
    public func sync(_ id: Int64) -> String { self == .shell ? "`recipes sync \(id)`" : "`sync \(id)`" }

    /// The command that syncs every due recipe, quoted: `` `recipes sync` ``.
    public var syncAll: String { self == .shell ? "`recipes sync`" : "`sync`" }

    /// The two ways of resolving recipe `id`'s conflict: `` `recipes resolve 3 --mine` or `--theirs` ``.
    public func resolve(_ id: Int64) -> String {
        self == .shell ? "`recipes resolve \(id) --mine` or `--theirs`" : "`resolve \(id) mine` or `theirs`"
    }

    /// How to choose one field when resolving: `--field NAME` in a shell, the field's name in the REPL.
    public var resolveField: String { self == .shell ? "add --field NAME to choose one field" : "add a field's name to choose one field" }

    /// The command that lists conflicts, quoted.
    public var conflicts: String { self == .shell ? "`recipes conflicts`" : "`conflicts`" }
}
