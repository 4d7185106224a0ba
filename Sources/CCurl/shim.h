// libcurl for HTTPClient on Linux (see CurlLoop.swift). Swift cannot call C's variadic functions,
// so each curl_easy_setopt / curl_easy_getinfo use gets a typed wrapper here.
#ifndef SPOTIFY_TOOLKIT_CCURL_SHIM_H
#define SPOTIFY_TOOLKIT_CCURL_SHIM_H

#include <curl/curl.h>

static inline CURLcode tk_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_ALL); }

static inline CURLcode tk_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tk_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tk_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tk_curl_setopt_write(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tk_curl_setopt_xferinfo(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode tk_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode tk_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURL *tk_curl_message_handle(const CURLMsg *message) {
    return message->msg == CURLMSG_DONE ? message->easy_handle : NULL;
}

static inline CURLcode tk_curl_message_result(const CURLMsg *message) { return message->data.result; }

#endif
