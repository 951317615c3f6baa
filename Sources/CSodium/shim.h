#ifndef FRONTDOOR_CSODIUM_SHIM_H
#define FRONTDOOR_CSODIUM_SHIM_H
// libsodium's functions import as they are; the header is here so the module has one place.
#include <sodium.h>
#endif
