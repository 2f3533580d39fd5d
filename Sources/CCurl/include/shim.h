#ifndef RECIPES_CCURL_SHIM_H
#define RECIPES_CCURL_SHIM_H
// libcurl for the Transport target. curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are
// variadic and not callable from Swift: each wrapper below fixes the type of the third argument.
// Pages mirrored: https://curl.se/libcurl/c/curl_easy_setopt.html,
// https://curl.se/libcurl/c/curl_easy_getinfo.html, https://curl.se/libcurl/c/curl_multi_setopt.html
#include <curl/curl.h>
#include <stddef.h>

// libcurl is loaded with dlopen when the first transfer is set up, not linked (loader.c; docs/sync-engine.md says
// why). Swift reaches libcurl only through the functions of this header, which call through the loader's table.

/// libcurl's functions as this project uses them, looked up once by `recipes_curl_load`.
struct recipes_curl_functions {
    const char *error;  // NULL when every function was found
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    curl_version_info_data *(*version_info)(CURLversion);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
};

/// Loads libcurl once per process; returns NULL, or why it could not be loaded.
const char *recipes_curl_load(void);

/// The loaded functions (`recipes_curl_load` returned NULL before any of them is used).
struct recipes_curl_functions *recipes_curl(void);

static inline CURLcode recipes_curl_global_init(long flags) { return recipes_curl()->global_init(flags); }
static inline CURL *recipes_curl_easy_init(void) { return recipes_curl()->easy_init(); }
static inline void recipes_curl_easy_cleanup(CURL *handle) { recipes_curl()->easy_cleanup(handle); }
static inline void recipes_curl_easy_reset(CURL *handle) { recipes_curl()->easy_reset(handle); }
static inline const char *recipes_curl_easy_strerror(CURLcode code) { return recipes_curl()->easy_strerror(code); }
static inline struct curl_slist *recipes_curl_slist_append(struct curl_slist *list, const char *line) {
    return recipes_curl()->slist_append(list, line);
}
static inline void recipes_curl_slist_free_all(struct curl_slist *list) { recipes_curl()->slist_free_all(list); }
static inline curl_version_info_data *recipes_curl_version_info(CURLversion version) {
    return recipes_curl()->version_info(version);
}
static inline CURLM *recipes_curl_multi_init(void) { return recipes_curl()->multi_init(); }
static inline CURLMcode recipes_curl_multi_cleanup(CURLM *handle) { return recipes_curl()->multi_cleanup(handle); }
static inline CURLMcode recipes_curl_multi_add_handle(CURLM *multi, CURL *easy) {
    return recipes_curl()->multi_add_handle(multi, easy);
}
static inline CURLMcode recipes_curl_multi_remove_handle(CURLM *multi, CURL *easy) {
    return recipes_curl()->multi_remove_handle(multi, easy);
}
static inline CURLMcode recipes_curl_multi_perform(CURLM *multi, int *running) {
    return recipes_curl()->multi_perform(multi, running);
}
static inline CURLMcode recipes_curl_multi_poll(CURLM *multi, struct curl_waitfd *fds, unsigned int count, int timeout,
                                                int *ready) {
    return recipes_curl()->multi_poll(multi, fds, count, timeout, ready);
}
static inline CURLMcode recipes_curl_multi_wakeup(CURLM *multi) { return recipes_curl()->multi_wakeup(multi); }
static inline CURLMsg *recipes_curl_multi_info_read(CURLM *multi, int *remaining) {
    return recipes_curl()->multi_info_read(multi, remaining);
}

/// curl_easy_setopt for options that take a `long`.
static inline CURLcode recipes_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return recipes_curl()->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a `curl_off_t` (the *_LARGE options).
static inline CURLcode recipes_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return recipes_curl()->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a C string (copied by libcurl) or NULL.
static inline CURLcode recipes_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return recipes_curl()->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a data pointer (callback user data, error buffer).
static inline CURLcode recipes_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return recipes_curl()->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_HTTPHEADER and other list options.
static inline CURLcode recipes_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return recipes_curl()->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_CAINFO_BLOB and other blob options.
static inline CURLcode recipes_curl_easy_setopt_blob(CURL *handle, CURLoption option, struct curl_blob *value) {
    return recipes_curl()->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION.
static inline CURLcode recipes_curl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
    return recipes_curl()->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_READFUNCTION.
static inline CURLcode recipes_curl_easy_setopt_read_function(CURL *handle, curl_read_callback value) {
    return recipes_curl()->easy_setopt(handle, CURLOPT_READFUNCTION, value);
}

/// curl_easy_setopt for CURLOPT_SEEKFUNCTION.
static inline CURLcode recipes_curl_easy_setopt_seek_function(CURL *handle, curl_seek_callback value) {
    return recipes_curl()->easy_setopt(handle, CURLOPT_SEEKFUNCTION, value);
}

/// curl_easy_setopt for CURLOPT_XFERINFOFUNCTION.
static inline CURLcode recipes_curl_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback value) {
    return recipes_curl()->easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

/// curl_easy_getinfo for infos that return a `long`.
static inline CURLcode recipes_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return recipes_curl()->easy_getinfo(handle, info, value);
}

/// curl_easy_getinfo for infos that return a `curl_off_t` (the *_T infos).
static inline CURLcode recipes_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return recipes_curl()->easy_getinfo(handle, info, value);
}

/// curl_multi_setopt for options that take a `long`.
static inline CURLMcode recipes_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return recipes_curl()->multi_setopt(handle, option, value);
}

/// The CURLMsg's result code (a member of an anonymous union, awkward to reach from Swift).
static inline CURLcode recipes_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

/// The value a read callback returns to abort the transfer (CURL_READFUNC_ABORT, a macro Swift cannot import).
static inline size_t recipes_curl_readfunc_abort(void) {
    return CURL_READFUNC_ABORT;
}

#endif
