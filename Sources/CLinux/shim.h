#ifndef RECIPES_CLINUX_SHIM_H
#define RECIPES_CLINUX_SHIM_H

#include <unistd.h>

/* Linux calls glibc declares only under _GNU_SOURCE, which Swift's Glibc module is not built with. */

/* Writes every dirty page of the file system holding `fd` to disk, then commits its journal once (syncfs(2)). */
int syncfs(int fd);

static inline int recipes_syncfs(int fd) { return syncfs(fd); }

#endif
