#ifndef FRONTDOOR_CCURL_SHIM_H
#define FRONTDOOR_CCURL_SHIM_H
// The libcurl that `make deps` (scripts/curl-deps) builds, static, from Debian 12's source package.
#include "../../.build/curl/current/include/curl/curl.h"

// Swift cannot call the variadic curl_easy_setopt / curl_easy_getinfo, and a value passed through
// `...` must have exactly the C type the option expects (a `long` really is 64 bits here, an
// int would be read as garbage). One typed setter per argument type, as swift-corelibs-foundation's
// CFURLSession does.

static inline CURLcode frontdoor_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode frontdoor_curl_setopt_off_t(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}

/// Strings are copied by libcurl (except CURLOPT_POSTFIELDS, which we never use).
static inline CURLcode frontdoor_curl_setopt_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}

/// Object pointers: CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_READDATA, CURLOPT_HTTPHEADER,
/// CURLOPT_MAIL_RCPT, CURLOPT_COPYPOSTFIELDS (a byte buffer, copied using CURLOPT_POSTFIELDSIZE_LARGE).
static inline CURLcode frontdoor_curl_setopt_ptr(CURL *curl, CURLoption option, const void *value) {
    return curl_easy_setopt(curl, option, value);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share this signature.
static inline CURLcode frontdoor_curl_setopt_write_callback(CURL *curl, CURLoption option, curl_write_callback fn) {
    return curl_easy_setopt(curl, option, fn);
}

/// CURLOPT_READFUNCTION (SMTP uploads the message through it).
static inline CURLcode frontdoor_curl_setopt_read_callback(CURL *curl, CURLoption option, curl_read_callback fn) {
    return curl_easy_setopt(curl, option, fn);
}

static inline CURLcode frontdoor_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}

static inline CURLcode frontdoor_curl_getinfo_off_t(CURL *curl, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(curl, info, value);
}

/// The string belongs to the handle: copy it before the next transfer or cleanup.
static inline CURLcode frontdoor_curl_getinfo_string(CURL *curl, CURLINFO info, char **value) {
    return curl_easy_getinfo(curl, info, value);
}

/// CURL_GLOBAL_DEFAULT is a macro built from other macros.
static inline CURLcode frontdoor_curl_global_init_default(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

/// CURLVERSION_NOW is a macro naming the newest layout this header knows.
static inline curl_version_info_data *frontdoor_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

#endif
