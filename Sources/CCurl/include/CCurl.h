// libcurl for HTTPClient on Linux (see Sources/HTTPClient/CurlLoop.swift), declared here rather
// than taken from <curl/curl.h>, and loaded with dlopen at the first request rather than linked:
// building needs no -dev package, and a run that sends no request never loads libcurl (nor the
// ~30 libraries it brings).
//
// The ABI this relies on, and why it holds:
// - The library is "libcurl.so.4": its SONAME has been 4 since libcurl 7.16.0 (2006). curl's ABI
//   policy (https://curl.se/libcurl/abi.html) is that an upgrade never breaks the ABI, and a
//   break would bump the SONAME; the option, info and error numbers below and the CURLMsg layout
//   are part of that ABI. curl_multi_poll needs libcurl 7.66 and curl_multi_wakeup 7.68; an
//   older libcurl is reported at the first request, naming the function it lacks.
// - Only the numbers, types and layouts below are assumed; CCurlABICheck.c compares every one of
//   them with <curl/curl.h> at compile time wherever that header is installed (CI installs it),
//   and CurlABITests fails if the check was not compiled there.
// - Every symbol here is tk_-prefixed, never curl_*: executables built with
//   --static-swift-stdlib export their symbols, and a curl_* one would interpose on libcurl's
//   own calls.
// Swift cannot call C's variadic functions, so each curl_easy_setopt / curl_easy_getinfo use
// gets a typed wrapper.
#ifndef SPOTIFY_TOOLKIT_CCURL_H
#define SPOTIFY_TOOLKIT_CCURL_H
#ifdef __linux__

#include <stddef.h>
#include <stdint.h>

/// CURL and CURLM: handles only libcurl looks into.
typedef void tk_curl_easy;
typedef void tk_curl_multi;
/// struct curl_slist: a header list, built and freed by libcurl only.
typedef struct tk_curl_slist tk_curl_slist;
/// curl_off_t (long on every 64-bit Linux).
typedef int64_t tk_curl_off_t;

/// CURLcode: the result of an easy call or a transfer.
typedef enum tk_curl_code {
    TK_CURLE_OK = 0,
    TK_CURLE_FAILED_INIT = 2,
    TK_CURLE_OPERATION_TIMEDOUT = 28,
    TK_CURLE_SSL_CONNECT_ERROR = 35,
    TK_CURLE_ABORTED_BY_CALLBACK = 42,
    TK_CURLE_UNKNOWN_OPTION = 48,
    TK_CURLE_GOT_NOTHING = 52,
    TK_CURLE_SSL_ENGINE_NOTFOUND = 53,
    TK_CURLE_SSL_ENGINE_SETFAILED = 54,
    TK_CURLE_SSL_CERTPROBLEM = 58,
    TK_CURLE_SSL_CIPHER = 59,
    TK_CURLE_PEER_FAILED_VERIFICATION = 60,
    TK_CURLE_USE_SSL_FAILED = 64,
    TK_CURLE_SSL_ENGINE_INITFAILED = 66,
    TK_CURLE_SSL_CACERT_BADFILE = 77,
    TK_CURLE_SSL_CRL_BADFILE = 82,
    TK_CURLE_SSL_ISSUER_ERROR = 83,
    TK_CURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    TK_CURLE_SSL_INVALIDCERTSTATUS = 91,
} tk_curl_code;

/// CURLMcode.
typedef enum tk_curl_multi_code {
    TK_CURLM_OK = 0,
} tk_curl_multi_code;

/// CURLoption: the options CurlLoop sets, by type (long from 0, pointer from 10000, function
/// from 20000, curl_off_t from 30000).
typedef enum tk_curl_option {
    TK_CURLOPT_LOW_SPEED_LIMIT = 19,
    TK_CURLOPT_LOW_SPEED_TIME = 20,
    TK_CURLOPT_NOPROGRESS = 43,
    TK_CURLOPT_NOBODY = 44,
    TK_CURLOPT_FOLLOWLOCATION = 52,
    TK_CURLOPT_HTTPPROXYTUNNEL = 61,
    TK_CURLOPT_FRESH_CONNECT = 74,
    TK_CURLOPT_CONNECTTIMEOUT = 78,
    TK_CURLOPT_NOSIGNAL = 99,
    TK_CURLOPT_TIMEOUT_MS = 155,
    TK_CURLOPT_PIPEWAIT = 237,
    TK_CURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    TK_CURLOPT_WRITEDATA = 10001,
    TK_CURLOPT_URL = 10002,
    TK_CURLOPT_PROXY = 10004,
    TK_CURLOPT_ERRORBUFFER = 10010,
    TK_CURLOPT_HTTPHEADER = 10023,
    TK_CURLOPT_HEADERDATA = 10029,
    TK_CURLOPT_CUSTOMREQUEST = 10036,
    TK_CURLOPT_XFERINFODATA = 10057,
    TK_CURLOPT_CAINFO = 10065,
    TK_CURLOPT_CAPATH = 10097,
    TK_CURLOPT_SHARE = 10100,
    TK_CURLOPT_ACCEPT_ENCODING = 10102,
    TK_CURLOPT_COPYPOSTFIELDS = 10165,
    TK_CURLOPT_PREREQDATA = 10313,
    TK_CURLOPT_WRITEFUNCTION = 20011,
    TK_CURLOPT_HEADERFUNCTION = 20079,
    TK_CURLOPT_XFERINFOFUNCTION = 20219,
    TK_CURLOPT_PREREQFUNCTION = 20312,
    TK_CURLOPT_POSTFIELDSIZE_LARGE = 30120,
} tk_curl_option;

/// CURLINFO (a long answer: 0x200000 + n).
typedef enum tk_curl_info {
    TK_CURLINFO_RESPONSE_CODE = 0x200002,
} tk_curl_info;

/// CURLMoption.
typedef enum tk_curl_multi_option {
    TK_CURLMOPT_MAXCONNECTS = 6,
    TK_CURLMOPT_MAX_HOST_CONNECTIONS = 7,
} tk_curl_multi_option;

/// CURLSHoption and curl_lock_data: what tk_curl_share_make sets up.
typedef enum tk_curl_share_option {
    TK_CURLSHOPT_SHARE = 1,
    TK_CURLSHOPT_LOCKFUNC = 3,
    TK_CURLSHOPT_UNLOCKFUNC = 4,
} tk_curl_share_option;
typedef enum tk_curl_lock_data {
    TK_CURL_LOCK_DATA_SHARE = 1,
    TK_CURL_LOCK_DATA_SSL_SESSION = 4,
} tk_curl_lock_data;

/// CURL_PREREQFUNC_OK and CURL_PREREQFUNC_ABORT: what a pre-request callback answers.
#define TK_CURL_PREREQFUNC_OK 0
#define TK_CURL_PREREQFUNC_ABORT 1

/// CURLMSG.
typedef enum tk_curl_message_kind {
    TK_CURLMSG_DONE = 1,
} tk_curl_message_kind;

/// CURL_ERROR_SIZE: the error buffer's size, its terminating NUL included.
#define TK_CURL_ERROR_SIZE 256
/// CURL_GLOBAL_ALL.
#define TK_CURL_GLOBAL_ALL 3L

/// CURLMsg, as curl_multi_info_read hands it back.
typedef struct tk_curl_message {
    tk_curl_message_kind msg;
    tk_curl_easy *easy_handle;
    union {
        void *whatever;
        tk_curl_code result;
    } data;
} tk_curl_message;

/// curl_write_callback and curl_xferinfo_callback.
typedef size_t (*tk_curl_write_callback)(char *buffer, size_t size, size_t count, void *user);
typedef int (*tk_curl_xferinfo_callback)(
    void *user, tk_curl_off_t download_total, tk_curl_off_t downloaded, tk_curl_off_t upload_total,
    tk_curl_off_t uploaded);
/// curl_prereq_callback (libcurl 7.80): called each time the request is about to be sent, on a
/// new or a reused connection, so also when libcurl sends it again by itself.
typedef int (*tk_curl_prereq_callback)(
    void *user, char *remote_ip, char *local_ip, int remote_port, int local_port);

/// Loads libcurl.so.4 and calls curl_global_init, once, whichever thread asks first. NULL when
/// libcurl is ready; otherwise why it is not ("libcurl.so.4 not found: install ..."), the same
/// text on every call. Every other tk_curl_ function needs a NULL from this first.
const char *tk_curl_load(void);

/// What tk_curl_load does, from `library` and into a table of its own, for tests: NULL when
/// every function is there, otherwise why not. Never calls curl_global_init; the library stays
/// loaded.
const char *tk_curl_probe(const char *library);

/// 1 when CCurlABICheck.c compared the numbers above with <curl/curl.h>, 0 when that header was
/// not installed where this was compiled.
int tk_curl_abi_checked(void);

tk_curl_easy *tk_curl_easy_init(void);
void tk_curl_easy_cleanup(tk_curl_easy *handle);
const char *tk_curl_easy_strerror(tk_curl_code code);
tk_curl_code tk_curl_setopt_long(tk_curl_easy *handle, tk_curl_option option, long value);
tk_curl_code tk_curl_setopt_pointer(tk_curl_easy *handle, tk_curl_option option, const void *value);
tk_curl_code tk_curl_setopt_off_t(tk_curl_easy *handle, tk_curl_option option, tk_curl_off_t value);
tk_curl_code tk_curl_setopt_write(tk_curl_easy *handle, tk_curl_option option, tk_curl_write_callback value);
tk_curl_code tk_curl_setopt_xferinfo(tk_curl_easy *handle, tk_curl_xferinfo_callback value);
/// CURLE_UNKNOWN_OPTION from a libcurl older than 7.80.
tk_curl_code tk_curl_setopt_prereq(tk_curl_easy *handle, tk_curl_prereq_callback value);
tk_curl_code tk_curl_getinfo_long(tk_curl_easy *handle, tk_curl_info info, long *value);

tk_curl_slist *tk_curl_slist_append(tk_curl_slist *list, const char *line);
void tk_curl_slist_free_all(tk_curl_slist *list);

tk_curl_multi *tk_curl_multi_init(void);
void tk_curl_multi_cleanup(tk_curl_multi *multi);
tk_curl_multi_code tk_curl_multi_setopt_long(tk_curl_multi *multi, tk_curl_multi_option option, long value);
tk_curl_multi_code tk_curl_multi_add_handle(tk_curl_multi *multi, tk_curl_easy *handle);
tk_curl_multi_code tk_curl_multi_remove_handle(tk_curl_multi *multi, tk_curl_easy *handle);
tk_curl_multi_code tk_curl_multi_perform(tk_curl_multi *multi, int *running);
const tk_curl_message *tk_curl_multi_info_read(tk_curl_multi *multi, int *left);
/// curl_multi_poll with no extra descriptors.
tk_curl_multi_code tk_curl_multi_poll(tk_curl_multi *multi, int timeout_ms);
tk_curl_multi_code tk_curl_multi_wakeup(tk_curl_multi *multi);

/// A share handle (CURLSH) that keeps TLS sessions for every easy handle given it with
/// CURLOPT_SHARE, so a new connection to a host resumes the session of an earlier one; locked
/// with mutexes of its own, as handles may be set up on any thread. NULL if libcurl refused.
void *tk_curl_share_make(void);

/// The finished transfer's handle, or NULL for any other message.
tk_curl_easy *tk_curl_message_handle(const tk_curl_message *message);
tk_curl_code tk_curl_message_result(const tk_curl_message *message);

#endif
#endif
