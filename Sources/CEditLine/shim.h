#ifndef RECIPES_CEDITLINE_SHIM_H
#define RECIPES_CEDITLINE_SHIM_H
// libedit's readline-compatible interface, for the REPL of `recipes edit` on a terminal.
// Its settings are C globals; Swift 6 does not let code assign them directly, so these typed
// `static inline` setters do (https://man.netbsd.org/editline.3).
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <editline/readline.h>

/// Names the program for libedit's settings file (~/.editrc).
static inline void recipes_editline_set_name(const char *name) { rl_readline_name = name; }

/// Installs the function that completes the word under the cursor; NULL restores file-name completion.
static inline void recipes_editline_set_completion(rl_completion_func_t *function) {
    rl_attempted_completion_function = function;
}

/// The line typed so far (up to the cursor's word when completing), as libedit's readline emulation keeps it.
static inline const char *recipes_editline_line_buffer(void) { return rl_line_buffer; }

/// The shell-style characters that quote a word when completing (so "a b" completes as one word).
static inline void recipes_editline_set_completion_quotes(const char *quotes) {
    rl_completer_quote_characters = quotes;
}

/// The character put after a completed word (0: none).
static inline void recipes_editline_set_append_character(int character) { rl_completion_append_character = character; }

/// Tells libedit not to fall back to file-name completion for the current word.
static inline void recipes_editline_completion_over(int over) { rl_attempted_completion_over = over; }

/// Set by the SIGINT handler while a line is read; cleared by `recipes_editline_take_interrupt`.
/// (Function-local statics: Swift emits the inline functions that own them, but not header-level globals.)
static inline volatile sig_atomic_t *recipes_editline_interrupted(void) {
    static volatile sig_atomic_t interrupted = 0;
    return &interrupted;
}

/// The thread blocked in readline. The signal may land on any thread of the process (Swift's async main runs
/// commands on pool threads), so the handler forwards it to this one, whose read() must see EINTR.
static inline pthread_t *recipes_editline_reader(void) {
    static pthread_t reader;
    return &reader;
}

static inline void recipes_editline_on_sigint(int signal_number) {
    *recipes_editline_interrupted() = 1;
    if (!pthread_equal(pthread_self(), *recipes_editline_reader())) {
        pthread_kill(*recipes_editline_reader(), signal_number);
    }
}

/// The descriptor that is readable when lines of background jobs wait to be shown (-1: none), and the function
/// that shows them: called on the reading thread between two keys, after which the prompt and the line being typed
/// are redrawn below the lines.
static inline int *recipes_editline_wake_fd(void) {
    static int fd = -1;
    return &fd;
}
/// Prints what waits above the prompt; returns whether it printed anything (only then is the prompt redrawn: a
/// redraw with nothing printed would write the prompt a second time after the first).
typedef int (*recipes_editline_wake_function)(void);
static inline recipes_editline_wake_function *recipes_editline_wake_handler(void) {
    static recipes_editline_wake_function handler = NULL;
    return &handler;
}

/// Sets the wake descriptor and the function that shows what is waiting.
static inline void recipes_editline_set_wake(int fd, recipes_editline_wake_function handler) {
    *recipes_editline_wake_fd() = fd;
    *recipes_editline_wake_handler() = handler;
}

/// Reads one byte of the terminal. A Ctrl-C interrupts the read (the handler is installed without SA_RESTART) and
/// reads as end of input, so readline returns and the caller can drop the line instead of the whole REPL. While
/// waiting for a key it also watches the wake descriptor and lets the wake function print above the prompt.
static inline int recipes_editline_read_byte(FILE *stream) {
    unsigned char byte;
    for (;;) {
        int wake = *recipes_editline_wake_fd();
        if (wake >= 0) {
            struct pollfd fds[2];
            fds[0].fd = fileno(stream);
            fds[0].events = POLLIN;
            fds[0].revents = 0;
            fds[1].fd = wake;
            fds[1].events = POLLIN;
            fds[1].revents = 0;
            if (poll(fds, 2, -1) < 0) {
                if (errno == EINTR && !*recipes_editline_interrupted()) continue;
                return EOF;
            }
            if (fds[1].revents & POLLIN) {
                recipes_editline_wake_function handler = *recipes_editline_wake_handler();
                if (handler != NULL && handler()) rl_forced_update_display();
                if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            }
        }
        ssize_t count = read(fileno(stream), &byte, 1);
        if (count == 1) return byte;
        if (count == 0) return EOF;
        if (errno == EINTR && !*recipes_editline_interrupted()) continue;
        return EOF;
    }
}

/// Whether characters other than ASCII are read (1: the process's LC_CTYPE is a UTF-8 one, so libedit can convert,
/// show and measure them) or refused (0: only ASCII can be read).
static inline int *recipes_editline_reads_utf8(void) {
    static int reads = 0;
    return &reads;
}

/// Set when the line being read got a byte that could not be read as a character (not UTF-8, or not ASCII when
/// only ASCII can be read): the line is refused, not stored without it. Cleared by `recipes_editline_take_unreadable`.
static inline int *recipes_editline_unreadable(void) {
    static int unreadable = 0;
    return &unreadable;
}

/// A byte read ahead while assembling a character that turned out not to belong to it (-1: none).
static inline int *recipes_editline_pending_byte(void) {
    static int pending = -1;
    return &pending;
}

/// Reads one character for libedit, which takes what this returns as a whole wide character (its readline
/// emulation's `rl_getc_function`): the bytes of a UTF-8 sequence are assembled into the code point they encode. A
/// byte that is not part of a valid sequence (or any but ASCII when only ASCII can be read) marks the line
/// unreadable and reads as `?`, so the person sees where it was.
static inline int recipes_editline_getc(FILE *stream) {
    int first = *recipes_editline_pending_byte();
    *recipes_editline_pending_byte() = -1;
    if (first < 0) first = recipes_editline_read_byte(stream);
    if (first == EOF || first < 0x80) return first;
    int length;
    unsigned int code;
    if ((first & 0xE0) == 0xC0) {
        length = 2;
        code = (unsigned int)first & 0x1F;
    } else if ((first & 0xF0) == 0xE0) {
        length = 3;
        code = (unsigned int)first & 0x0F;
    } else if ((first & 0xF8) == 0xF0) {
        length = 4;
        code = (unsigned int)first & 0x07;
    } else {
        *recipes_editline_unreadable() = 1;
        return '?';
    }
    for (int index = 1; index < length; index++) {
        int next = recipes_editline_read_byte(stream);
        if (next == EOF) return EOF;
        if ((next & 0xC0) != 0x80) {
            *recipes_editline_pending_byte() = next;
            *recipes_editline_unreadable() = 1;
            return '?';
        }
        code = (code << 6) | ((unsigned int)next & 0x3F);
    }
    static const unsigned int smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
    int valid = code >= smallest[length] && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
    if (!valid || !*recipes_editline_reads_utf8()) {
        *recipes_editline_unreadable() = 1;
        return '?';
    }
    return (int)code;
}

/// Says whether characters other than ASCII are read (see `recipes_editline_reads_utf8`).
static inline void recipes_editline_set_reads_utf8(int reads) { *recipes_editline_reads_utf8() = reads; }

/// Whether the last line read held a byte that could not be read as a character; clears the note.
static inline int recipes_editline_take_unreadable(void) {
    int unreadable = *recipes_editline_unreadable();
    *recipes_editline_unreadable() = 0;
    return unreadable;
}

/// Lets the REPL handle Ctrl-C itself: libedit installs no signal handlers and reads through our getc.
static inline void recipes_editline_take_over_interrupts(void) {
    rl_catch_signals = 0;
    rl_getc_function = recipes_editline_getc;
}

/// Installs the SIGINT handler for the duration of one read, saving the previous one, and unblocks SIGINT on
/// the calling thread (pool threads of Swift concurrency start with every signal blocked).
static inline void recipes_editline_catch_sigint(struct sigaction *previous, sigset_t *previous_mask) {
    sigset_t interrupt_only;
    sigemptyset(&interrupt_only);
    sigaddset(&interrupt_only, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &interrupt_only, previous_mask);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = recipes_editline_on_sigint;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    *recipes_editline_interrupted() = 0;
    *recipes_editline_reader() = pthread_self();
    sigaction(SIGINT, &action, previous);
}

/// Restores the SIGINT handler and signal mask saved by `recipes_editline_catch_sigint`.
static inline void recipes_editline_restore_sigint(const struct sigaction *previous, const sigset_t *previous_mask) {
    sigaction(SIGINT, previous, NULL);
    pthread_sigmask(SIG_SETMASK, previous_mask, NULL);
}

/// Whether a Ctrl-C arrived during the last read; clears the note.
static inline int recipes_editline_take_interrupt(void) {
    int interrupted = *recipes_editline_interrupted();
    *recipes_editline_interrupted() = 0;
    return interrupted;
}

#endif
