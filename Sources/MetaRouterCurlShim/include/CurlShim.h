#ifndef METAROUTER_CURL_SHIM_H
#define METAROUTER_CURL_SHIM_H

#include <stddef.h>

/// libcurl's `curl_easy_setopt` and `curl_easy_getinfo` are variadic. Swift cannot call a C
/// variadic function through a function pointer, and calling one through a non-variadic type
/// is undefined behaviour by C's rules, so these call them from C, with the argument of the type
/// the option names. `function` is the address `dlsym` returned for the entry point; libcurl
/// itself is loaded at run time, so the package needs no curl headers and links nothing.

/// A `curl_write_callback` (`CURLOPT_WRITEFUNCTION`, `CURLOPT_HEADERFUNCTION`).
typedef size_t (*metarouter_curl_write_callback)(char *buffer, size_t size, size_t count, void *context);

/// `curl_easy_setopt(handle, option, value)` for an option that takes a pointer.
int metarouter_curl_setopt_pointer(void *function, void *handle, int option, const void *value);
/// `curl_easy_setopt(handle, option, value)` for an option that takes a `long`.
int metarouter_curl_setopt_long(void *function, void *handle, int option, long value);
/// `curl_easy_setopt(handle, option, value)` for an option that takes a write callback.
int metarouter_curl_setopt_callback(void *function, void *handle, int option, metarouter_curl_write_callback value);
/// `curl_easy_getinfo(handle, info, value)` for an info that answers a `long`.
int metarouter_curl_getinfo_long(void *function, void *handle, int info, long *value);

#endif
