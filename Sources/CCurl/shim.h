#ifndef FRONTDOOR_CCURL_SHIM_H
#define FRONTDOOR_CCURL_SHIM_H
#include <curl/curl.h>
#endif
