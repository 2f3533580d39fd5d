// The libcurl loader of the CCurl target: libcurl is opened with dlopen when the first transfer is set up, not
// linked, and its functions are looked up once into a table that the typed wrappers of include/shim.h call through.
#include "shim.h"
#include <dlfcn.h>
#include <pthread.h>

/// The looked-up functions, filled once by `recipes_curl_load_once`.
static struct recipes_curl_functions table;

static void *recipes_curl_symbol(void *library, const char *name, const char **error) {
    void *symbol = dlsym(library, name);
    if (symbol == NULL && *error == NULL) *error = name;
    return symbol;
}

static void recipes_curl_load_once(void) {
    struct recipes_curl_functions *f = &table;
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_GLOBAL);
    if (library == NULL) {
        const char *reason = dlerror();
        f->error = reason != NULL ? reason : "libcurl.so.4: cannot be loaded";
        return;
    }
    const char *missing = NULL;
    f->global_init = (CURLcode (*)(long))recipes_curl_symbol(library, "curl_global_init", &missing);
    f->easy_init = (CURL *(*)(void))recipes_curl_symbol(library, "curl_easy_init", &missing);
    f->easy_cleanup = (void (*)(CURL *))recipes_curl_symbol(library, "curl_easy_cleanup", &missing);
    f->easy_reset = (void (*)(CURL *))recipes_curl_symbol(library, "curl_easy_reset", &missing);
    f->easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))recipes_curl_symbol(library, "curl_easy_setopt", &missing);
    f->easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))recipes_curl_symbol(library, "curl_easy_getinfo", &missing);
    f->easy_strerror = (const char *(*)(CURLcode))recipes_curl_symbol(library, "curl_easy_strerror", &missing);
    f->slist_append = (struct curl_slist *(*)(struct curl_slist *, const char *))
        recipes_curl_symbol(library, "curl_slist_append", &missing);
    f->slist_free_all = (void (*)(struct curl_slist *))recipes_curl_symbol(library, "curl_slist_free_all", &missing);
    f->version_info = (curl_version_info_data *(*)(CURLversion))
        recipes_curl_symbol(library, "curl_version_info", &missing);
    f->multi_init = (CURLM *(*)(void))recipes_curl_symbol(library, "curl_multi_init", &missing);
    f->multi_cleanup = (CURLMcode (*)(CURLM *))recipes_curl_symbol(library, "curl_multi_cleanup", &missing);
    f->multi_setopt = (CURLMcode (*)(CURLM *, CURLMoption, ...))
        recipes_curl_symbol(library, "curl_multi_setopt", &missing);
    f->multi_add_handle = (CURLMcode (*)(CURLM *, CURL *))recipes_curl_symbol(library, "curl_multi_add_handle", &missing);
    f->multi_remove_handle = (CURLMcode (*)(CURLM *, CURL *))
        recipes_curl_symbol(library, "curl_multi_remove_handle", &missing);
    f->multi_perform = (CURLMcode (*)(CURLM *, int *))recipes_curl_symbol(library, "curl_multi_perform", &missing);
    f->multi_poll = (CURLMcode (*)(CURLM *, struct curl_waitfd *, unsigned int, int, int *))
        recipes_curl_symbol(library, "curl_multi_poll", &missing);
    f->multi_wakeup = (CURLMcode (*)(CURLM *))recipes_curl_symbol(library, "curl_multi_wakeup", &missing);
    f->multi_info_read = (CURLMsg *(*)(CURLM *, int *))recipes_curl_symbol(library, "curl_multi_info_read", &missing);
    if (missing != NULL) f->error = "libcurl.so.4 lacks a function recipes needs (libcurl 7.68 or later is required)";
}

/// Loads libcurl once per process; returns NULL, or why it could not be loaded.
const char *recipes_curl_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, recipes_curl_load_once);
    return table.error;
}

/// The loaded functions (`recipes_curl_load` returned NULL before any of them is used).
struct recipes_curl_functions *recipes_curl(void) {
    recipes_curl_load();
    return &table;
}

