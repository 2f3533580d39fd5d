#ifndef RECIPES_CEDITLINE_SHIM_H
#define RECIPES_CEDITLINE_SHIM_H
// libedit's readline-compatible interface, for the REPL of `recipes edit` on a terminal.
// Its settings are C globals; Swift 6 does not let code assign them directly, so these typed
// `static inline` setters do (https://man.netbsd.org/editline.3).
#include <stdio.h>
#include <editline/readline.h>

/// Names the program for libedit's settings file (~/.editrc).
static inline void recipes_editline_set_name(const char *name) { rl_readline_name = name; }

/// Installs the function that completes the word under the cursor; NULL restores file-name completion.
static inline void recipes_editline_set_completion(rl_completion_func_t *function) {
    rl_attempted_completion_function = function;
}

/// Tells libedit not to fall back to file-name completion for the current word.
static inline void recipes_editline_completion_over(int over) { rl_attempted_completion_over = over; }

#endif
