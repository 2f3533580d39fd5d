#ifndef RECIPES_CCURL_SHIM_H
#define RECIPES_CCURL_SHIM_H
// libcurl for the Transport target. curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are
// variadic and not callable from Swift: each wrapper below fixes the type of the third argument.
// Pages mirrored: https://curl.se/libcurl/c/curl_easy_setopt.html,
// https://curl.se/libcurl/c/curl_easy_getinfo.html, https://curl.se/libcurl/c/curl_multi_setopt.html
#include <curl/curl.h>

/// curl_easy_setopt for options that take a `long`.
static inline CURLcode recipes_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a `curl_off_t` (the *_LARGE options).
static inline CURLcode recipes_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a C string (copied by libcurl) or NULL.
static inline CURLcode recipes_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a data pointer (callback user data, error buffer).
static inline CURLcode recipes_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_HTTPHEADER and other list options.
static inline CURLcode recipes_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_CAINFO_BLOB and other blob options.
static inline CURLcode recipes_curl_easy_setopt_blob(CURL *handle, CURLoption option, struct curl_blob *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION.
static inline CURLcode recipes_curl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_READFUNCTION.
static inline CURLcode recipes_curl_easy_setopt_read_function(CURL *handle, curl_read_callback value) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, value);
}

/// curl_easy_setopt for CURLOPT_SEEKFUNCTION.
static inline CURLcode recipes_curl_easy_setopt_seek_function(CURL *handle, curl_seek_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, value);
}

/// curl_easy_setopt for CURLOPT_XFERINFOFUNCTION.
static inline CURLcode recipes_curl_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

/// curl_easy_getinfo for infos that return a `long`.
static inline CURLcode recipes_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// curl_easy_getinfo for infos that return a `curl_off_t` (the *_T infos).
static inline CURLcode recipes_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// curl_multi_setopt for options that take a `long`.
static inline CURLMcode recipes_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
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
