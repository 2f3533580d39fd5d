import CEditLine
import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// The terminal line editor of `recipes edit`: libedit's readline interface with a history file and tab completion
/// of command names (https://man.netbsd.org/editline.3).
///
/// libedit keeps its state in C globals, so one editor exists per process and is used from one thread at a time.
final class LineEditor {
    let historyPath: String
    static let historyLimit: Int32 = 1000

    /// Sets up libedit and loads the history file (a missing file is an empty history).
    init(historyPath: String, commandNames: [String]) {
        self.historyPath = historyPath
        completionNames.withLock { $0 = commandNames }
        recipes_editline_set_name("recipes")
        recipes_editline_take_over_interrupts()
        using_history()
        stifle_history(Self.historyLimit)
        _ = read_history(historyPath)
        recipes_editline_set_completion(completeCommandName)
    }

    /// What the person at the terminal did.
    enum Input: Equatable {
        /// Entered a line.
        case line(String)
        /// Pressed Ctrl-C: the line being typed is dropped.
        case interrupted
        /// Pressed Ctrl-D on an empty line, or the terminal went away.
        case endOfInput
    }

    /// Reads one line with `prompt`; non-blank lines join the history. Ctrl-C abandons the line, not the REPL.
    func read(prompt: String) -> Input {
        var previous = sigaction()
        var previousMask = sigset_t()
        recipes_editline_catch_sigint(&previous, &previousMask)
        defer { recipes_editline_restore_sigint(&previous, &previousMask) }
        guard let raw = readline(prompt) else {
            return recipes_editline_take_interrupt() != 0 ? .interrupted : .endOfInput
        }
        defer { free(raw) }
        let line = String(cString: raw)
        if !line.trimmingCharacters(in: .whitespaces).isEmpty { add_history(raw) }
        return .line(line)
    }

    /// Writes the history file (mode 0600: lines may hold private notes).
    func saveHistory() {
        if write_history(historyPath) == 0 {
            _ = history_truncate_file(historyPath, Self.historyLimit)
            chmod(historyPath, 0o600)
        }
    }
}

/// The names tab completion offers, set once per editor; read by the C completion callbacks.
private let completionNames = Locked<[String]>([])
/// The matches of the word being completed, consumed one by one by libedit's generator protocol.
private let pendingMatches = Locked<[String]>([])

/// libedit's attempted-completion hook: command names for the first word, file names after it.
private let completeCommandName: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = { text, start, _ in
    guard start == 0, let text else { return nil }
    recipes_editline_completion_over(1)
    return rl_completion_matches(text, nextCommandName)
}

/// libedit's generator: state 0 starts a new completion; each call returns one strdup'ed match or nil.
private let nextCommandName: @convention(c) (UnsafePointer<CChar>?, Int32) -> UnsafeMutablePointer<CChar>? = { text, state in
    let prefix = text.map { String(cString: $0) } ?? ""
    return pendingMatches.withLock { matches in
        if state == 0 {
            matches = completionNames.withLock { names in names.filter { $0.hasPrefix(prefix) } }
        }
        guard !matches.isEmpty else { return nil }
        return strdup(matches.removeFirst())
    }
}
