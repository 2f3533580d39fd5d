#ifndef RECIPES_CLINUX_SHIM_H
#define RECIPES_CLINUX_SHIM_H

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_tun.h>

/* Linux calls glibc declares only under _GNU_SOURCE, which Swift's Glibc module is not built with. */

/* Writes every dirty page of the file system holding `fd` to disk, then commits its journal once (syncfs(2)). */
int syncfs(int fd);

static inline int recipes_syncfs(int fd) { return syncfs(fd); }

/* Waits for events on `fds` at most `timeout` (nanosecond precision; NULL: no limit), as ppoll(2) without a mask. */
int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);

static inline int recipes_ppoll(struct pollfd *fds, unsigned long count, const struct timespec *timeout) {
    return ppoll(fds, (nfds_t)count, timeout, NULL);
}

/* The start of struct ifreq (a 16-byte name, then the flags), padded to its 40 bytes: declared here so that neither
   <linux/if.h> nor glibc's <net/if.h>, which clash when both are seen, has to be included. */
struct recipes_tun_request {
    char name[16];
    short flags;
    char padding[22];
};

/* Makes `fd` (an open /dev/net/tun) a new TUN device carrying bare IP packets (IFF_TUN | IFF_NO_PI), named `name`
   (at most 15 bytes); the name the kernel gave it is copied to `actual` (16 bytes). 0, or -1 with errno (TUNSETIFF is
   an ioctl, a variadic call Swift cannot make). */
static inline int recipes_tun_attach(int fd, const char *name, char *actual) {
    struct recipes_tun_request request;
    memset(&request, 0, sizeof request);
    strncpy(request.name, name, sizeof request.name - 1);
    request.flags = IFF_TUN | IFF_NO_PI;
    if (ioctl(fd, TUNSETIFF, &request) != 0) return -1;
    memcpy(actual, request.name, sizeof request.name);
    return 0;
}

/* ---- rtnetlink: the kernel's notices of link, address and route changes, for `recipes sync --watch` ---- */
/* netlink(7), rtnetlink(7): a NETLINK_ROUTE socket bound to the multicast groups below hears every change of links,
   IPv4/IPv6 addresses and routes; joining them needs no privilege. */

#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* The groups the watcher joins (RTMGRP_* are macros Swift imports one by one; this is their union). */
static const unsigned int recipes_rtnetlink_groups =
    RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;

/* NLMSG_ALIGN and NLMSG_HDRLEN, which are function-like macros Swift does not import. */
static inline unsigned int recipes_nlmsg_align(unsigned int length) { return NLMSG_ALIGN(length); }
static inline unsigned int recipes_nlmsg_hdrlen(void) { return NLMSG_HDRLEN; }

/* setns(2) into a network namespace (CLONE_NEWNET, from <sched.h> under _GNU_SOURCE): the tests open a notice socket
   inside a private namespace they make, where they add and remove addresses and routes. */
int setns(int fd, int nstype);
static inline int recipes_enter_network_namespace(int fd) { return setns(fd, 0x40000000 /* CLONE_NEWNET */); }

/* ---- end of rtnetlink ---- */

#endif
