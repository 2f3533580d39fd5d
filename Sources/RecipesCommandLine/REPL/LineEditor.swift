import CEditLine
import Foundation
import Locking
import RecipeStore
#if canImport(Glibc)
import Glibc
#endif

/// The terminal line editor of `recipes edit`: libedit's readline interface with a history file, tab completion
/// (`ReplCompletion`) and lines of background jobs printed above the prompt without breaking the line being typed
/// (https://man.netbsd.org/editline.3).
///
/// libedit keeps its state in C globals, so one editor exists per process and is used from one thread at a time;
/// background jobs only hand it lines (`JobLines`) and wake it through a pipe, and it prints them itself between two
/// keys.
final class LineEditor {
    let historyPath: String
    /// The home's database files, which the history file must not be (libedit opens and closes it; see
    /// `DatabaseFiles`).
    let database: DatabaseFiles
    static let historyLimit: Int32 = 1000
    /// How characters are read: the `LC_CTYPE` set before libedit started (see `TerminalLocale`).
    let locale: TerminalLocale
    /// The pipe that wakes the reader when lines of background jobs wait: [read end, write end].
    private var wakePipe: [Int32] = [-1, -1]

    /// Sets the character locale from `environment` (`TerminalLocale`), sets up libedit and loads the history file (a
    /// missing file is an empty history); `complete` answers what tab offers after the given words.
    init(
        historyPath: String, database: DatabaseFiles, environment: [String: String],
        complete: @escaping @Sendable (_ before: [String], _ prefix: String) -> ReplCompletion
    ) {
        self.historyPath = historyPath
        self.database = database
        // Before libedit starts (`using_history` starts it): it reads the locale's character set once.
        locale = TerminalLocale.apply(environment: environment)
        recipes_editline_set_reads_utf8(locale.readsUTF8 ? 1 : 0)
        completion.withLock { $0 = complete }
        recipes_editline_set_name("recipes")
        recipes_editline_take_over_interrupts()
        using_history()
        stifle_history(Self.historyLimit)
        if !database.contains(path: historyPath) { _ = read_history(historyPath) }
        recipes_editline_set_completion(completeWord)
        recipes_editline_set_completion_quotes("\"'")
    }

    deinit {
        recipes_editline_set_wake(-1, nil)
        for fd in wakePipe where fd >= 0 { close(fd) }
        shownLines.withLock { $0 = nil }
    }

    /// Prints the lines `lines` collects above the prompt while a line is read.
    func show(_ lines: JobLines) {
        guard wakePipe[0] < 0, pipe(&wakePipe) == 0 else { return }
        for fd in wakePipe {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        let writeEnd = wakePipe[1]
        lines.setWake {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)  // a full pipe already says that lines wait
        }
        shownLines.withLock { $0 = (lines, wakePipe[0]) }
        recipes_editline_set_wake(wakePipe[0], printWaitingLines)
    }

    /// What the person at the terminal did.
    enum Input: Equatable {
        /// Entered a line.
        case line(String)
        /// Pressed Ctrl-C: the line being typed is dropped.
        case interrupted
        /// Pressed Ctrl-D on an empty line, or the terminal went away.
        case endOfInput
        /// Entered a line holding what could not be read as a character (`TerminalLocale.refusal` says why): it is
        /// not run and not remembered.
        case unreadable
    }

    /// Reads one line with `prompt`; non-blank lines join the history unless `remember` is false. Ctrl-C abandons
    /// the line, not the REPL.
    func read(prompt: String, remember: Bool = true) -> Input {
        var previous = sigaction()
        var previousMask = sigset_t()
        recipes_editline_catch_sigint(&previous, &previousMask)
        defer { recipes_editline_restore_sigint(&previous, &previousMask) }
        let lines = shownLines.withLock { $0?.lines }
        lines?.setMode(.reading)
        defer { lines?.setMode(.direct) }
        _ = recipes_editline_take_unreadable()
        guard let raw = readline(prompt) else {
            return recipes_editline_take_interrupt() != 0 ? .interrupted : .endOfInput
        }
        defer { free(raw) }
        if recipes_editline_take_unreadable() != 0 { return .unreadable }
        let line = String(cString: raw)
        if remember, !line.trimmingCharacters(in: .whitespaces).isEmpty { add_history(raw) }
        return .line(line)
    }

    /// Writes the history file (mode 0600: lines may hold private notes).
    func saveHistory() {
        guard !database.contains(path: historyPath) else { return }  // a link to the database: libedit would write it
        if write_history(historyPath) == 0 {
            _ = history_truncate_file(historyPath, Self.historyLimit)
            chmod(historyPath, 0o600)
        }
    }
}

/// What tab completion offers, set once per editor; called by the C completion callback.
private let completion = Locked<(@Sendable ([String], String) -> ReplCompletion)?>(nil)
/// The lines shown above the prompt and the read end of the pipe that announces them.
private let shownLines = Locked<(lines: JobLines, wakeFD: Int32)?>(nil)

/// libedit's wake function: empties the pipe and prints the waiting lines; 1 when it printed (libedit then redraws
/// the prompt), 0 when a wake found them printed already (two lines posted at once, as a job's last event and its
/// end are, wake twice but are printed by the first wake).
private let printWaitingLines: @convention(c) () -> Int32 = {
    guard let (lines, fd) = shownLines.withLock({ $0 }) else { return 0 }
    var buffer = [UInt8](repeating: 0, count: 64)
    while read(fd, &buffer, buffer.count) > 0 {}
    return lines.printPending() ? 1 : 0
}

/// libedit's attempted-completion hook: the words before the one being completed decide what is offered; the
/// matches are returned in readline's form (the text to insert first, then the list to show), allocated with malloc
/// since libedit frees them.
private let completeWord: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = { text, start, _ in
    let text = text.map { String(cString: $0) } ?? ""
    var typed = ""
    if let buffer = recipes_editline_line_buffer() {
        typed = String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self),
                                                     count: Int(max(0, start))), as: UTF8.self)
    }
    // libedit's word ends at a blank or a quote; a quote still open makes the word (a title of several words) start
    // after it, and what libedit replaces is only its own word: the part typed before that stays.
    let quote = CompletionWord.openQuote(in: typed)
    let kept = quote.map { String(typed[$0...]) } ?? ""
    let prefix = quote.map { String(typed[typed.index(after: $0)...]) + text } ?? text
    let head = quote.map { String(typed[..<$0]) } ?? typed
    let before = (try? LineSplitter.split(head)) ?? head.split(separator: " ").map(String.init)
    var answer = completion.withLock { $0 }?(before, prefix) ?? .nothing
    if case .words(let candidates, let appendSpace) = answer {
        answer = .words(CompletionWord.within(candidates, quote: quote.map { typed[$0] }, kept: kept, typed: prefix),
                        appendSpace: appendSpace)
    }
    switch answer {
    case .files:
        recipes_editline_set_append_character(32)
        return nil  // libedit completes file names itself
    case .nothing:
        recipes_editline_completion_over(1)
        return nil
    case .words(let candidates, let appendSpace):
        recipes_editline_completion_over(1)
        recipes_editline_set_append_character(appendSpace ? 32 : 0)
        // One match: [it, it] (older libedit compares the two); several: [their common start, each as shown].
        let entries = candidates.count == 1
            ? [candidates[0].insert, candidates[0].insert]
            : [CompletionWord.common(candidates, kept: kept, typed: text)] + CompletionWord.aligned(candidates.map(\.display))
        let size = MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (entries.count + 1)
        guard let memory = malloc(size) else { return nil }
        let matches = memory.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: entries.count + 1)
        for (index, entry) in entries.enumerated() { matches[index] = strdup(entry) }
        matches[entries.count] = nil
        return matches
    }
}
