#ifndef FRONTDOOR_COPENSSL_SHIM_H
#define FRONTDOOR_COPENSSL_SHIM_H
// SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP, but they are a direct
// implementation, while EVP's first use sets up providers: about 0.3 ms of every process.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <openssl/md5.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/bn.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/hmac.h>
#include <openssl/x509.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <string.h>

// Must run before any other OpenSSL call: the first call otherwise initialises with openssl.cnf,
// which costs every process and would let a host file change what we verify with.
static inline int frontdoor_openssl_init(void) {
    // Nor its error strings: ~0.9 M instructions a process, and frontdoor never prints them.
    return OPENSSL_init_crypto(
        OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, NULL);
}

/// SHA-256 without EVP. Returns 1 on success.
static inline int frontdoor_sha256(const void *data, size_t length, unsigned char out[32]) {
    SHA256_CTX context;
    if (SHA256_Init(&context) != 1) return 0;
    if (SHA256_Update(&context, data, length) != 1) return 0;
    int ok = SHA256_Final(out, &context);
    OPENSSL_cleanse(&context, sizeof context);
    return ok;
}

/// SHA-1 without EVP, for the Pwned Passwords range service only (its k-anonymity prefix is of a
/// SHA-1; nothing of ours relies on SHA-1's strength). Returns 1 on success.
static inline int frontdoor_sha1(const void *data, size_t length, unsigned char out[20]) {
    SHA_CTX context;
    if (SHA1_Init(&context) != 1) return 0;
    if (SHA1_Update(&context, data, length) != 1) return 0;
    int ok = SHA1_Final(out, &context);
    OPENSSL_cleanse(&context, sizeof context);
    return ok;
}

static inline int frontdoor_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

// OSSL_PARAM_BLD keeps the key and string pointers until the parameters are used, so they must be
// static C strings, not Swift strings bridged for the length of one call.
static inline const char *frontdoor_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *frontdoor_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *frontdoor_param_group(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *frontdoor_param_pub(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *frontdoor_group_p256(void) { return "prime256v1"; }

// Apple's team key (.p8): an EC key on P-256, or nothing we sign with. Returns 1 when it is.
static inline int frontdoor_pkey_is_p256(EVP_PKEY *pkey) {
    if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC) return 0;
    char name[64];
    size_t length = 0;
    if (EVP_PKEY_get_group_name(pkey, name, sizeof name, &length) != 1) return 0;
    return strcmp(name, "prime256v1") == 0 || strcmp(name, "P-256") == 0;
}
#endif
