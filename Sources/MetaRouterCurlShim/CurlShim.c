#include "CurlShim.h"

typedef int (*metarouter_curl_variadic)(void *handle, int option, ...);

int metarouter_curl_setopt_pointer(void *function, void *handle, int option, const void *value) {
    return ((metarouter_curl_variadic)function)(handle, option, value);
}

int metarouter_curl_setopt_long(void *function, void *handle, int option, long value) {
    return ((metarouter_curl_variadic)function)(handle, option, value);
}

int metarouter_curl_setopt_callback(void *function, void *handle, int option, metarouter_curl_write_callback value) {
    return ((metarouter_curl_variadic)function)(handle, option, value);
}

int metarouter_curl_getinfo_long(void *function, void *handle, int info, long *value) {
    return ((metarouter_curl_variadic)function)(handle, info, value);
}
