#ifndef FRONTDOOR_COPENSSL_SHIM_H
#define FRONTDOOR_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#endif
