// The one place CCurl.h's numbers and layouts are compared with libcurl's own header: wherever
// <curl/curl.h> is installed (CI installs libcurl4-openssl-dev for this), a difference stops the
// build here, naming the number. Building needs no such header; without it nothing is compared,
// and tk_curl_abi_checked says so (CurlABITests).
#ifdef __linux__
#include "CCurl.h"

#if __has_include(<curl/curl.h>)
#include <curl/curl.h>
#include <stddef.h>

// As plain numbers: ours and theirs are different enum types.
#define TK_SAME(ours, theirs) \
    _Static_assert((long long)(ours) == (long long)(theirs), #ours " differs from <curl/curl.h>'s " #theirs)

TK_SAME(TK_CURLE_OK, CURLE_OK);
TK_SAME(TK_CURLE_FAILED_INIT, CURLE_FAILED_INIT);
TK_SAME(TK_CURLE_OPERATION_TIMEDOUT, CURLE_OPERATION_TIMEDOUT);
TK_SAME(TK_CURLE_GOT_NOTHING, CURLE_GOT_NOTHING);
TK_SAME(TK_CURLM_OK, CURLM_OK);

TK_SAME(TK_CURLOPT_LOW_SPEED_LIMIT, CURLOPT_LOW_SPEED_LIMIT);
TK_SAME(TK_CURLOPT_LOW_SPEED_TIME, CURLOPT_LOW_SPEED_TIME);
TK_SAME(TK_CURLOPT_NOPROGRESS, CURLOPT_NOPROGRESS);
TK_SAME(TK_CURLOPT_NOBODY, CURLOPT_NOBODY);
TK_SAME(TK_CURLOPT_FOLLOWLOCATION, CURLOPT_FOLLOWLOCATION);
TK_SAME(TK_CURLOPT_HTTPPROXYTUNNEL, CURLOPT_HTTPPROXYTUNNEL);
TK_SAME(TK_CURLOPT_FRESH_CONNECT, CURLOPT_FRESH_CONNECT);
TK_SAME(TK_CURLOPT_CONNECTTIMEOUT, CURLOPT_CONNECTTIMEOUT);
TK_SAME(TK_CURLOPT_NOSIGNAL, CURLOPT_NOSIGNAL);
TK_SAME(TK_CURLOPT_TIMEOUT_MS, CURLOPT_TIMEOUT_MS);
TK_SAME(TK_CURLOPT_SUPPRESS_CONNECT_HEADERS, CURLOPT_SUPPRESS_CONNECT_HEADERS);
TK_SAME(TK_CURLOPT_WRITEDATA, CURLOPT_WRITEDATA);
TK_SAME(TK_CURLOPT_URL, CURLOPT_URL);
TK_SAME(TK_CURLOPT_PROXY, CURLOPT_PROXY);
TK_SAME(TK_CURLOPT_ERRORBUFFER, CURLOPT_ERRORBUFFER);
TK_SAME(TK_CURLOPT_HTTPHEADER, CURLOPT_HTTPHEADER);
TK_SAME(TK_CURLOPT_HEADERDATA, CURLOPT_HEADERDATA);
TK_SAME(TK_CURLOPT_CUSTOMREQUEST, CURLOPT_CUSTOMREQUEST);
TK_SAME(TK_CURLOPT_XFERINFODATA, CURLOPT_XFERINFODATA);
TK_SAME(TK_CURLOPT_COPYPOSTFIELDS, CURLOPT_COPYPOSTFIELDS);
TK_SAME(TK_CURLOPT_WRITEFUNCTION, CURLOPT_WRITEFUNCTION);
TK_SAME(TK_CURLOPT_HEADERFUNCTION, CURLOPT_HEADERFUNCTION);
TK_SAME(TK_CURLOPT_XFERINFOFUNCTION, CURLOPT_XFERINFOFUNCTION);
TK_SAME(TK_CURLOPT_POSTFIELDSIZE_LARGE, CURLOPT_POSTFIELDSIZE_LARGE);

TK_SAME(TK_CURLINFO_RESPONSE_CODE, CURLINFO_RESPONSE_CODE);
TK_SAME(TK_CURLMOPT_MAX_HOST_CONNECTIONS, CURLMOPT_MAX_HOST_CONNECTIONS);
TK_SAME(TK_CURLMSG_DONE, CURLMSG_DONE);
TK_SAME(TK_CURL_ERROR_SIZE, CURL_ERROR_SIZE);
TK_SAME(TK_CURL_GLOBAL_ALL, CURL_GLOBAL_ALL);

// The types passed by value, and what is read from CURLMsg.
TK_SAME(sizeof(tk_curl_off_t), sizeof(curl_off_t));
TK_SAME(sizeof(tk_curl_code), sizeof(CURLcode));
TK_SAME(sizeof(tk_curl_multi_code), sizeof(CURLMcode));
TK_SAME(sizeof(tk_curl_option), sizeof(CURLoption));
TK_SAME(sizeof(tk_curl_info), sizeof(CURLINFO));
TK_SAME(sizeof(tk_curl_multi_option), sizeof(CURLMoption));
TK_SAME(sizeof(tk_curl_message_kind), sizeof(CURLMSG));
TK_SAME(sizeof(tk_curl_message), sizeof(CURLMsg));
TK_SAME(offsetof(tk_curl_message, msg), offsetof(CURLMsg, msg));
TK_SAME(offsetof(tk_curl_message, easy_handle), offsetof(CURLMsg, easy_handle));
TK_SAME(offsetof(tk_curl_message, data.result), offsetof(CURLMsg, data.result));
TK_SAME(sizeof(((tk_curl_message *)0)->data), sizeof(((CURLMsg *)0)->data));

int tk_curl_abi_checked(void) { return 1; }
#else
int tk_curl_abi_checked(void) { return 0; }
#endif
#endif
