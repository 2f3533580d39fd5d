import Locking

/// Where the lines of background jobs go, so that they never break what the person is doing: written at once while
/// a command runs in the foreground, handed to the line editor while it reads a line (it prints them above the
/// prompt and redraws the line being typed), held while a full-screen text editor owns the terminal.
final class JobLines: Sendable {
    /// What the terminal is doing.
    enum Mode: Sendable {
        /// A command runs, or there is no terminal: lines go out at once.
        case direct
        /// The line editor waits for keys: lines wait for it, and `wake` tells it.
        case reading
        /// A text editor has the terminal: lines wait until it is closed.
        case held
    }

    private let console: any Console
    private let state = Locked<(mode: Mode, pending: [String], wake: (@Sendable () -> Void)?)>((.direct, [], nil))

    /// Lines to `console`.
    init(console: any Console) { self.console = console }

    /// Sets what tells the line editor that lines wait.
    func setWake(_ wake: @escaping @Sendable () -> Void) { state.withLock { $0.wake = wake } }

    /// Shows `line` (without its newline) as the terminal allows.
    func post(_ line: String) {
        state.withLock { state in
            switch state.mode {
            case .direct: console.out(line + "\n")
            case .reading:
                state.pending.append(line)
                state.wake?()
            case .held: state.pending.append(line)
            }
        }
    }

    /// Changes the mode; lines held back go out when it becomes `direct`.
    func setMode(_ mode: Mode) {
        state.withLock { state in
            state.mode = mode
            if mode == .direct, !state.pending.isEmpty {
                console.out(state.pending.map { $0 + "\n" }.joined())
                state.pending = []
            } else if mode == .reading, !state.pending.isEmpty {
                state.wake?()
            }
        }
    }

    /// Writes the waiting lines for the line editor, on a cleared line above where its prompt is redrawn; whether
    /// there were any (when not, the prompt must not be redrawn: it is still there).
    @discardableResult
    func printPending() -> Bool {
        state.withLock { state in
            guard !state.pending.isEmpty else { return false }
            console.out("\r\u{1B}[K" + state.pending.map { $0 + "\n" }.joined())
            state.pending = []
            return true
        }
    }
}

/// A console whose every line goes to `JobLines` prefixed with the job's number: what a background sync writes to.
struct JobConsole: Console {
    let lines: JobLines
    let prefix: String

    func out(_ text: String) { post(text) }
    func err(_ text: String) { post(text) }

    private func post(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) { lines.post(prefix + line) }
    }
}
