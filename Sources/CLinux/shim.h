#ifndef RECIPES_CLINUX_SHIM_H
#define RECIPES_CLINUX_SHIM_H

#include <unistd.h>

/* Linux calls glibc declares only under _GNU_SOURCE, which Swift's Glibc module is not built with. */

/* Writes every dirty page of the file system holding `fd` to disk, then commits its journal once (syncfs(2)). */
int syncfs(int fd);

static inline int recipes_syncfs(int fd) { return syncfs(fd); }

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
