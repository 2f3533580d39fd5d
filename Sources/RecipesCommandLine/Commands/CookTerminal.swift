import Foundation
import RecipeModels
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `recipes cook` on a terminal: the terminal in raw mode on its alternate screen, one `CookSession` screen drawn
/// at a time, keys read as they are typed and the session ticked as its timers' seconds pass.
///
/// The decisions are `CookSession`'s and the rows `CookScreen`'s; this loop only reads keys, reads the clock, draws
/// and rings. However the command ends — `q`, Ctrl-C, Ctrl-D, SIGTERM, SIGHUP, SIGINT, SIGQUIT, the terminal gone — the
/// terminal's settings, screen and cursor are put back as they were before it returns. The signal handlers only
/// store the signal's number (async-signal-safe); the loop wakes at least every 250 ms to look at it.
enum CookTerminal {
    /// The signal that asked the cook mode to end (0: none).
    static let stopSignal = Atomic<Int32>(0)
    /// Whether the terminal was resized since the last frame.
    static let resized = Atomic<Bool>(false)

    /// The signals that end the cook mode.
    static let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Why the cook mode ended.
    enum Ending: Equatable {
        /// `q` (or Ctrl-D), or the terminal closed.
        case quit
        /// Ctrl-C: status 130, as a shell reports an interrupted command.
        case interrupted
        /// A signal: status 128 + its number.
        case signal(Int32)

        /// The exit status the command ends with.
        var status: Int32 {
            switch self {
            case .quit: 0
            case .interrupted: 130
            case .signal(let number): 128 + number
            }
        }
    }

    /// Runs the cook mode of `text` on the terminal of stdin and stdout; throws when the terminal cannot be put in
    /// raw mode (nothing changed then).
    static func run(_ text: CookText) throws -> Ending {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw CommandLineError("cannot read the terminal's settings (\(String(cString: strerror(errno)))); "
                + "`recipes cook <id> | less` prints the whole recipe instead")
        }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        stopSignal.store(0, ordering: .sequentiallyConsistent)
        resized.store(false, ordering: .sequentiallyConsistent)
        var previous: [Int32: sigaction] = [:]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in CookTerminal.stopSignal.store(number, ordering: .sequentiallyConsistent) }
        sigemptyset(&action.sa_mask)
        for number in stopSignals {
            var old = sigaction()
            sigaction(number, &action, &old)
            previous[number] = old
        }
        var resize = sigaction()
        resize.__sigaction_handler.sa_handler = { _ in CookTerminal.resized.store(true, ordering: .sequentiallyConsistent) }
        sigemptyset(&resize.sa_mask)
        var oldResize = sigaction()
        sigaction(SIGWINCH, &resize, &oldResize)
        previous[SIGWINCH] = oldResize
        defer {
            for (number, var old) in previous { sigaction(number, &old, nil) }
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            throw CommandLineError("cannot put the terminal in raw mode (\(String(cString: strerror(errno)))); "
                + "`recipes cook <id> | less` prints the whole recipe instead")
        }
        // The alternate screen, the cursor hidden; both put back, and the settings, however the loop ends.
        write("\u{1B}[?1049h\u{1B}[?25l")
        defer {
            write("\u{1B}[?25h\u{1B}[?1049l")
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        }
        return loop(text)
    }

    /// Draws, waits for a key or the next second of a timer, and applies it, until the session quits or a signal
    /// or Ctrl-C ends it.
    private static func loop(_ text: CookText) -> Ending {
        let origin = ContinuousClock.now
        func now() -> Duration { ContinuousClock.now - origin }
        var session = CookSession(times: text.times)
        var size = TerminalSize.current()
        draw(text, session, size: size, now: now())
        while true {
            let signal = stopSignal.load(ordering: .sequentiallyConsistent)
            if signal != 0 { return .signal(signal) }
            if resized.exchange(false, ordering: .sequentiallyConsistent) {
                size = TerminalSize.current()
                draw(text, session, size: size, now: now())
            }
            // Until the countdown next changes, and at least every 250 ms to see a signal.
            let wait = session.timers.nextChange(after: now()).map { $0 - now() } ?? .milliseconds(250)
            let milliseconds = max(1, min(250, Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)))
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(milliseconds))
            if ready < 0 {
                if errno == EINTR { continue }
                return .quit
            }
            var actions: [CookSession.Action] = []
            if ready > 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                guard count > 0 else { return .quit }  // the terminal is gone
                for input in CookInput.decode(Array(buffer.prefix(count))) {
                    switch input {
                    case .interrupt: return .interrupted
                    case .key(let key): actions += session.handle(.key(key), at: now())
                    }
                    if actions.contains(.quit) { return .quit }
                }
            } else {
                actions = session.handle(.tick, at: now())
            }
            if actions.contains(.bell) { write("\u{07}") }
            if actions.contains(.redraw) { draw(text, session, size: size, now: now()) }
        }
    }

    /// Draws a whole frame over the last one: home, each row then erase to its end, erase below the last.
    private static func draw(_ text: CookText, _ session: CookSession, size: TerminalSize, now: Duration) {
        let rows = CookScreen.rows(text, session, size: size, now: now)
        write("\u{1B}[H" + rows.joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K\u{1B}[J")
    }

    private static func write(_ text: String) { StandardConsole.write(text, to: STDOUT_FILENO) }
}
