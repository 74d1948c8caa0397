#ifndef BYTECLUB_CCURL_H
#define BYTECLUB_CCURL_H

#include <curl/curl.h>

/*
 * libcurl's setopt/getinfo functions are variadic, which Swift cannot call.
 * These typed wrappers pin down the argument type for each kind of option.
 * Macros built from other macros (CURLPAUSE_CONT and friends) are also
 * re-exported as constants, because Swift imports only simple literals.
 */

static inline CURLcode bc_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bc_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bc_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bc_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bc_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }

static inline CURLcode bc_easy_set_write_function(CURL *h, curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode bc_easy_set_header_function(CURL *h, curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLcode bc_easy_set_read_function(CURL *h, curl_read_callback f) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode bc_easy_set_xferinfo_function(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode bc_easy_set_seek_function(CURL *h, curl_seek_callback f) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }
static inline CURLcode bc_easy_set_closesocket_function(CURL *h, curl_closesocket_callback f) { return curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, f); }

static inline CURLMcode bc_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode bc_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode bc_multi_set_socket_function(CURLM *m, curl_socket_callback f) { return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, f); }
static inline CURLMcode bc_multi_set_timer_function(CURLM *m, curl_multi_timer_callback f) { return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, f); }

static inline CURLcode bc_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode bc_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode bc_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode bc_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }

static inline CURLSHcode bc_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }

/* CURLMsg.data is a union; reading the result member needs C. */
static inline CURLcode bc_msg_result(const CURLMsg *m) { return m->data.result; }

static const CURLversion BC_CURLVERSION_NOW = CURLVERSION_NOW;
static const int BC_CURLPAUSE_ALL = CURLPAUSE_ALL;
static const int BC_CURLPAUSE_CONT = CURLPAUSE_CONT;
static const long BC_CURL_GLOBAL_ALL = CURL_GLOBAL_ALL;
static const curl_socket_t BC_CURL_SOCKET_TIMEOUT = CURL_SOCKET_TIMEOUT;
static const int BC_CURL_CSELECT_IN = CURL_CSELECT_IN;
static const int BC_CURL_CSELECT_OUT = CURL_CSELECT_OUT;
static const int BC_CURL_CSELECT_ERR = CURL_CSELECT_ERR;
static const int BC_CURL_POLL_NONE = CURL_POLL_NONE;
static const int BC_CURL_POLL_IN = CURL_POLL_IN;
static const int BC_CURL_POLL_OUT = CURL_POLL_OUT;
static const int BC_CURL_POLL_INOUT = CURL_POLL_INOUT;
static const int BC_CURL_POLL_REMOVE = CURL_POLL_REMOVE;
static const size_t BC_CURL_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const size_t BC_CURL_READFUNC_PAUSE = CURL_READFUNC_PAUSE;
static const int BC_CURL_SEEKFUNC_OK = CURL_SEEKFUNC_OK;
static const int BC_CURL_SEEKFUNC_FAIL = CURL_SEEKFUNC_FAIL;
static const int BC_CURL_ERROR_SIZE = CURL_ERROR_SIZE;
static const size_t BC_CURL_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
static const long BC_CURL_HTTP_VERSION_1_1 = CURL_HTTP_VERSION_1_1;
/* HTTP authentication schemes for CURLOPT_HTTPAUTH (macros built from casts and shifts). */
static const long BC_CURLAUTH_BASIC = (long)CURLAUTH_BASIC;
static const long BC_CURLAUTH_DIGEST = (long)CURLAUTH_DIGEST;

#endif
