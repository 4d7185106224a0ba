// Binds the libcurl functions CCurl.h wraps, from libcurl.so.4 at the first request (why: the
// comment at the top of CCurl.h).
#ifdef __linux__
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/// The libcurl functions used, as dlsym finds them.
struct curl_functions {
    tk_curl_code (*global_init)(long flags);
    tk_curl_easy *(*easy_init)(void);
    void (*easy_cleanup)(tk_curl_easy *);
    const char *(*easy_strerror)(tk_curl_code);
    tk_curl_code (*easy_setopt)(tk_curl_easy *, tk_curl_option, ...);
    tk_curl_code (*easy_getinfo)(tk_curl_easy *, tk_curl_info, ...);
    tk_curl_slist *(*slist_append)(tk_curl_slist *, const char *);
    void (*slist_free_all)(tk_curl_slist *);
    tk_curl_multi *(*multi_init)(void);
    tk_curl_multi_code (*multi_cleanup)(tk_curl_multi *);
    tk_curl_multi_code (*multi_setopt)(tk_curl_multi *, tk_curl_multi_option, ...);
    tk_curl_multi_code (*multi_add_handle)(tk_curl_multi *, tk_curl_easy *);
    tk_curl_multi_code (*multi_remove_handle)(tk_curl_multi *, tk_curl_easy *);
    tk_curl_multi_code (*multi_perform)(tk_curl_multi *, int *);
    const tk_curl_message *(*multi_info_read)(tk_curl_multi *, int *);
    tk_curl_multi_code (*multi_poll)(tk_curl_multi *, void *extra_fds, unsigned extra_count, int timeout_ms, int *ready);
    tk_curl_multi_code (*multi_wakeup)(tk_curl_multi *);
    void *(*share_init)(void);
    int (*share_setopt)(void *, tk_curl_share_option, ...);
};

/// Why `library` could not be bound, and what to install.
static const char install_hint[] = "install libcurl4 (Debian, Ubuntu) or libcurl (Fedora)";

/// Opens `library` and fills `into`; NULL on success, otherwise the reason, written to `why`.
static const char *bind_curl(const char *library, struct curl_functions *into, char *why, size_t why_size) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *error = dlerror();
        // Not there at all is the common case, and says only that; anything else (a dependency
        // of libcurl missing, a wrong architecture) keeps dlopen's own words.
        if (error == NULL || strstr(error, "No such file or directory") != NULL) {
            snprintf(why, why_size, "%s not found: %s", library, install_hint);
        } else {
            snprintf(why, why_size, "%s could not be loaded (%s): %s", library, error, install_hint);
        }
        return why;
    }
    // 7.68 is the oldest libcurl with every function used (curl_multi_wakeup came last).
#define TK_BIND(field)                                                                                   \
    do {                                                                                                 \
        *(void **)(&into->field) = dlsym(handle, "curl_" #field);                                       \
        if (into->field == NULL) {                                                                       \
            snprintf(why, why_size, "%s has no curl_" #field " (libcurl 7.68 or later is needed): %s", library, \
                install_hint);                                                                           \
            return why;                                                                                  \
        }                                                                                                \
    } while (0)
    TK_BIND(global_init);
    TK_BIND(easy_init);
    TK_BIND(easy_cleanup);
    TK_BIND(easy_strerror);
    TK_BIND(easy_setopt);
    TK_BIND(easy_getinfo);
    TK_BIND(slist_append);
    TK_BIND(slist_free_all);
    TK_BIND(multi_init);
    TK_BIND(multi_cleanup);
    TK_BIND(multi_setopt);
    TK_BIND(multi_add_handle);
    TK_BIND(multi_remove_handle);
    TK_BIND(multi_perform);
    TK_BIND(multi_info_read);
    TK_BIND(multi_poll);
    TK_BIND(multi_wakeup);
    TK_BIND(share_init);
    TK_BIND(share_setopt);
#undef TK_BIND
    return NULL;
}

static struct curl_functions curl;
static char load_failure[512];
static const char *load_result = load_failure;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load_curl(void) {
    load_result = bind_curl("libcurl.so.4", &curl, load_failure, sizeof load_failure);
    if (load_result == NULL && curl.global_init(TK_CURL_GLOBAL_ALL) != TK_CURLE_OK) {
        snprintf(load_failure, sizeof load_failure, "libcurl.so.4 could not start (curl_global_init failed)");
        load_result = load_failure;
    }
}

const char *tk_curl_load(void) {
    pthread_once(&load_once, load_curl);
    return load_result;
}

const char *tk_curl_probe(const char *library) {
    static __thread char why[512];
    struct curl_functions functions;
    return bind_curl(library, &functions, why, sizeof why);
}

tk_curl_easy *tk_curl_easy_init(void) { return curl.easy_init(); }
void tk_curl_easy_cleanup(tk_curl_easy *handle) { curl.easy_cleanup(handle); }
const char *tk_curl_easy_strerror(tk_curl_code code) { return curl.easy_strerror(code); }

tk_curl_code tk_curl_setopt_long(tk_curl_easy *handle, tk_curl_option option, long value) {
    return curl.easy_setopt(handle, option, value);
}

tk_curl_code tk_curl_setopt_pointer(tk_curl_easy *handle, tk_curl_option option, const void *value) {
    return curl.easy_setopt(handle, option, value);
}

tk_curl_code tk_curl_setopt_off_t(tk_curl_easy *handle, tk_curl_option option, tk_curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}

tk_curl_code tk_curl_setopt_write(tk_curl_easy *handle, tk_curl_option option, tk_curl_write_callback value) {
    return curl.easy_setopt(handle, option, value);
}

tk_curl_code tk_curl_setopt_xferinfo(tk_curl_easy *handle, tk_curl_xferinfo_callback value) {
    return curl.easy_setopt(handle, TK_CURLOPT_XFERINFOFUNCTION, value);
}

tk_curl_code tk_curl_getinfo_long(tk_curl_easy *handle, tk_curl_info info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}

tk_curl_code tk_curl_setopt_prereq(tk_curl_easy *handle, tk_curl_prereq_callback value) {
    return curl.easy_setopt(handle, TK_CURLOPT_PREREQFUNCTION, value);
}

tk_curl_slist *tk_curl_slist_append(tk_curl_slist *list, const char *line) { return curl.slist_append(list, line); }
void tk_curl_slist_free_all(tk_curl_slist *list) { curl.slist_free_all(list); }

tk_curl_multi *tk_curl_multi_init(void) { return curl.multi_init(); }
void tk_curl_multi_cleanup(tk_curl_multi *multi) { curl.multi_cleanup(multi); }

tk_curl_multi_code tk_curl_multi_setopt_long(tk_curl_multi *multi, tk_curl_multi_option option, long value) {
    return curl.multi_setopt(multi, option, value);
}

tk_curl_multi_code tk_curl_multi_add_handle(tk_curl_multi *multi, tk_curl_easy *handle) {
    return curl.multi_add_handle(multi, handle);
}

tk_curl_multi_code tk_curl_multi_remove_handle(tk_curl_multi *multi, tk_curl_easy *handle) {
    return curl.multi_remove_handle(multi, handle);
}

tk_curl_multi_code tk_curl_multi_perform(tk_curl_multi *multi, int *running) {
    return curl.multi_perform(multi, running);
}

const tk_curl_message *tk_curl_multi_info_read(tk_curl_multi *multi, int *left) {
    return curl.multi_info_read(multi, left);
}

tk_curl_multi_code tk_curl_multi_poll(tk_curl_multi *multi, int timeout_ms) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, NULL);
}

tk_curl_multi_code tk_curl_multi_wakeup(tk_curl_multi *multi) { return curl.multi_wakeup(multi); }

/// One mutex per kind of shared data (curl_lock_data: the share itself, the TLS sessions; room
/// for the kinds a later libcurl adds), for the share handle's callbacks.
#define TK_SHARE_LOCKS 16
static pthread_mutex_t share_locks[TK_SHARE_LOCKS];

static void share_lock(void *handle, int data, int access, void *user) {
    (void)handle, (void)access, (void)user;
    if (data >= 0 && data < TK_SHARE_LOCKS) pthread_mutex_lock(&share_locks[data]);
}

static void share_unlock(void *handle, int data, void *user) {
    (void)handle, (void)user;
    if (data >= 0 && data < TK_SHARE_LOCKS) pthread_mutex_unlock(&share_locks[data]);
}

static void *share;
static pthread_once_t share_once = PTHREAD_ONCE_INIT;

static void make_share(void) {
    for (int i = 0; i < TK_SHARE_LOCKS; i++) pthread_mutex_init(&share_locks[i], NULL);
    void *made = curl.share_init();
    if (made == NULL) return;
    if (curl.share_setopt(made, TK_CURLSHOPT_LOCKFUNC, share_lock) != 0 ||
        curl.share_setopt(made, TK_CURLSHOPT_UNLOCKFUNC, share_unlock) != 0 ||
        curl.share_setopt(made, TK_CURLSHOPT_SHARE, (int)TK_CURL_LOCK_DATA_SSL_SESSION) != 0) {
        return;  // left unused (a handle or two of memory): each connection then negotiates anew
    }
    share = made;
}

void *tk_curl_share_make(void) {
    pthread_once(&share_once, make_share);
    return share;
}

tk_curl_easy *tk_curl_message_handle(const tk_curl_message *message) {
    return message->msg == TK_CURLMSG_DONE ? message->easy_handle : NULL;
}

tk_curl_code tk_curl_message_result(const tk_curl_message *message) { return message->data.result; }
#endif
