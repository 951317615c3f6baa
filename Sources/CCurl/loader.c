// libcurl, loaded on first use. Linking it costs every process about 4 ms of loading and
// relocating 27 shared libraries, and most sign-ins (keys cached) never touch the network. These
// definitions stand in for the ten libcurl functions frontdoor calls: the first call dlopen()s
// libcurl.so.4 and every call forwards to the real one. A missing libcurl makes curl_easy_init
// answer NULL and curl_global_init CURLE_FAILED_INIT, which callers already treat as failure.
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} api;

static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *symbol(void *library, const char *name, int *missing) {
    void *address = dlsym(library, name);
    if (address == NULL) *missing = 1;
    return address;
}

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "frontdoor: cannot load libcurl.so.4: %s\n", dlerror());
        return;
    }
    int missing = 0;
    *(void **)&api.global_init = symbol(library, "curl_global_init", &missing);
    *(void **)&api.easy_init = symbol(library, "curl_easy_init", &missing);
    *(void **)&api.easy_setopt = symbol(library, "curl_easy_setopt", &missing);
    *(void **)&api.easy_perform = symbol(library, "curl_easy_perform", &missing);
    *(void **)&api.easy_getinfo = symbol(library, "curl_easy_getinfo", &missing);
    *(void **)&api.easy_cleanup = symbol(library, "curl_easy_cleanup", &missing);
    *(void **)&api.easy_reset = symbol(library, "curl_easy_reset", &missing);
    *(void **)&api.easy_strerror = symbol(library, "curl_easy_strerror", &missing);
    *(void **)&api.slist_append = symbol(library, "curl_slist_append", &missing);
    *(void **)&api.slist_free_all = symbol(library, "curl_slist_free_all", &missing);
    if (missing) {
        fprintf(stderr, "frontdoor: libcurl.so.4 lacks a function frontdoor needs\n");
        return;
    }
    loaded = 1;
}

static int ready(void) {
    pthread_once(&once, load);
    return loaded;
}

CURLcode curl_global_init(long flags) {
    return ready() ? api.global_init(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void) {
    return ready() ? api.easy_init() : NULL;
}

// The value's C type follows from the option's number range (CURLOPTTYPE_*), as in curl.h.
CURLcode curl_easy_setopt(CURL *handle, CURLoption option, ...) {
    if (!ready()) return CURLE_FAILED_INIT;
    va_list arguments;
    va_start(arguments, option);
    CURLcode result;
    if (option < CURLOPTTYPE_OBJECTPOINT) {
        result = api.easy_setopt(handle, option, va_arg(arguments, long));
    } else if (option < CURLOPTTYPE_FUNCTIONPOINT) {
        result = api.easy_setopt(handle, option, va_arg(arguments, void *));
    } else if (option < CURLOPTTYPE_OFF_T) {
        result = api.easy_setopt(handle, option, va_arg(arguments, void (*)(void)));
    } else if (option < CURLOPTTYPE_BLOB) {
        result = api.easy_setopt(handle, option, va_arg(arguments, curl_off_t));
    } else {
        result = api.easy_setopt(handle, option, va_arg(arguments, void *));
    }
    va_end(arguments);
    return result;
}

CURLcode curl_easy_perform(CURL *handle) {
    return ready() ? api.easy_perform(handle) : CURLE_FAILED_INIT;
}

// Every CURLINFO_* answer is written through a pointer, whatever its type.
CURLcode curl_easy_getinfo(CURL *handle, CURLINFO info, ...) {
    if (!ready()) return CURLE_FAILED_INIT;
    va_list arguments;
    va_start(arguments, info);
    CURLcode result = api.easy_getinfo(handle, info, va_arg(arguments, void *));
    va_end(arguments);
    return result;
}

void curl_easy_cleanup(CURL *handle) {
    if (ready()) api.easy_cleanup(handle);
}

void curl_easy_reset(CURL *handle) {
    if (ready()) api.easy_reset(handle);
}

const char *curl_easy_strerror(CURLcode code) {
    return ready() ? api.easy_strerror(code) : "libcurl is not available";
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text) {
    return ready() ? api.slist_append(list, text) : NULL;
}

void curl_slist_free_all(struct curl_slist *list) {
    if (ready()) api.slist_free_all(list);
}
