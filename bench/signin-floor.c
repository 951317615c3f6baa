/* A returning person's Google sign-in, only the work no sign-in in this shape can skip, in C:
   the bound under frontdoor's signin-google, whatever its language. It reads the POST body,
   takes the ID token out of it by searching (no JSON parser), checks its RS256 signature against
   the provider's key as frontdoor does (compiled in as KEY_FILE: the modulus and exponent, base64url, on one line;
   the real program reads its cached key set from the store), finds the person's account by the
   token's `sub` in the store (compiled in as STORE_FILE: opening it parses the store's whole
   schema, as any program must) and writes a new session into the session file beside it, then
   answers the token, emptying the session file's WAL after the answer as frontdoor's programs
   do once it passes 64 pages. No config, no claims but `sub`, no rate limit, no log line, no events: a
   floor under the real sign-in, not a copy of it. Compiled by scripts/bench, statically, against
   the same SQLite archive and libcrypto.a as the programs. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/bn.h>
#include <openssl/sha.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#ifndef STORE_FILE
#error "compile with -DSTORE_FILE='\"/path/to/frontdoor.sqlite3\"' -DKEY_FILE='\"/path/to/key\"'"
#endif

static int answer(const char *status, const char *body) {
    printf("Status: %s\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n\r\n%s\n", status, body);
    return 0;
}

static int value(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

/* Base64url without padding into out (room for n * 3 / 4 bytes); the length, or -1. */
static long decode(const char *in, size_t n, unsigned char *out) {
    long length = 0;
    unsigned bits = 0, count = 0;
    for (size_t i = 0; i < n; i++) {
        int v = value((unsigned char)in[i]);
        if (v < 0) return -1;
        bits = (bits << 6) | (unsigned)v;
        count += 6;
        if (count >= 8) {
            count -= 8;
            out[length++] = (unsigned char)(bits >> count);
        }
    }
    return length;
}

static void encode(const unsigned char *in, size_t n, char *out) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned bits = 0, count = 0;
    for (size_t i = 0; i < n; i++) {
        bits = (bits << 8) | in[i];
        count += 8;
        while (count >= 6) {
            count -= 6;
            *out++ = alphabet[(bits >> count) & 63];
        }
    }
    if (count > 0) *out++ = alphabet[(bits << (6 - count)) & 63];
    *out = 0;
}

/* The string value of "name": in text, copied into out (size room); 0 when absent. */
static int field(const char *text, const char *name, char *out, size_t room) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", name);
    const char *start = strstr(text, pattern);
    if (start == NULL) return 0;
    start += strlen(pattern);
    const char *end = strchr(start, '"');
    if (end == NULL || (size_t)(end - start) >= room) return 0;
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = 0;
    return 1;
}

static int verified(const char *token) {
    const char *dot = strchr(token, '.');
    const char *last = dot ? strchr(dot + 1, '.') : NULL;
    if (last == NULL) return 0;
    unsigned char digest[SHA256_DIGEST_LENGTH], signature[1024], n[1200], e[32];
    SHA256_CTX context;
    if (SHA256_Init(&context) != 1 || SHA256_Update(&context, token, (size_t)(last - token)) != 1 ||
        SHA256_Final(digest, &context) != 1)
        return 0;
    size_t signatureText = strlen(last + 1);
    if (signatureText > sizeof signature * 4 / 3) return 0;
    long signatureLength = decode(last + 1, signatureText, signature);
    FILE *file = fopen(KEY_FILE, "r");
    if (file == NULL) return 0;
    char modulus[1500], exponent[32];
    int read = fscanf(file, "%1499s %31s", modulus, exponent);
    fclose(file);
    if (read != 2) return 0;
    long nLength = decode(modulus, strlen(modulus), n), eLength = decode(exponent, strlen(exponent), e);
    if (signatureLength <= 0 || nLength <= 0 || eLength <= 0) return 0;
    /* RS256 as frontdoor checks it: s^e mod n by BN_mod_exp, then the PKCS #1 v1.5 block
       compared whole. RSA_verify would load OpenSSL's providers, a third of this program's time. */
    static const unsigned char prefix[] = {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                           0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20};
    BIGNUM *bn = BN_bin2bn(n, (int)nLength, NULL), *be = BN_bin2bn(e, (int)eLength, NULL);
    BIGNUM *bs = BN_bin2bn(signature, (int)signatureLength, NULL), *bm = BN_new();
    BN_CTX *bc = BN_CTX_new();
    unsigned char block[1200], expected[1200];
    int ok = bn && be && bs && bm && bc && signatureLength == nLength && nLength >= 62 && BN_cmp(bs, bn) < 0 &&
             BN_mod_exp(bm, bs, be, bn, bc) == 1 && BN_bn2binpad(bm, block, (int)nLength) == (int)nLength;
    if (ok) {
        size_t k = (size_t)nLength, tail = sizeof prefix + sizeof digest;
        expected[0] = 0x00;
        expected[1] = 0x01;
        memset(expected + 2, 0xff, k - tail - 3);
        expected[k - tail - 1] = 0x00;
        memcpy(expected + k - tail, prefix, sizeof prefix);
        memcpy(expected + k - sizeof digest, digest, sizeof digest);
        ok = memcmp(block, expected, k) == 0;
    }
    BN_free(bn);
    BN_free(be);
    BN_free(bs);
    BN_free(bm);
    BN_CTX_free(bc);
    return ok;
}

static sqlite3 *opened(void) {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(STORE_FILE "-sessions", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 5000);
    int on = 1, set = 0;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &set) != SQLITE_OK || set != 1 ||
        sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &on) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; ATTACH '" STORE_FILE "' AS store",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_file_control(db, "store", SQLITE_FCNTL_PERSIST_WAL, &on) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA store.synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

int main(void) {
    const char *lengthText = getenv("CONTENT_LENGTH");
    long length = lengthText ? strtol(lengthText, NULL, 10) : 0;
    if (length <= 0 || length > 16384) return answer("400 Bad Request", "{}");
    char body[16385], token[8192], payloadText[4096], subject[256];
    if (fread(body, 1, (size_t)length, stdin) != (size_t)length) return answer("400 Bad Request", "{}");
    body[length] = 0;
    if (!field(body, "idToken", token, sizeof token) || !verified(token)) return answer("401 Unauthorized", "{}");
    const char *dot = strchr(token, '.'), *last = strchr(dot + 1, '.');
    if ((size_t)(last - dot - 1) > sizeof payloadText * 4 / 3 - 4) return answer("401 Unauthorized", "{}");
    long payloadLength = decode(dot + 1, (size_t)(last - dot - 1), (unsigned char *)payloadText);
    if (payloadLength <= 0) return answer("401 Unauthorized", "{}");
    payloadText[payloadLength] = 0;
    if (!field(payloadText, "sub", subject, sizeof subject)) return answer("401 Unauthorized", "{}");

    unsigned char secret[32], hash[SHA256_DIGEST_LENGTH], id[16];
    SHA256_CTX context;
    /* From the kernel, as frontdoor's are: OpenSSL's RAND_bytes would set up its providers first. */
    if (getrandom(secret, sizeof secret, 0) != (ssize_t)sizeof secret || getrandom(id, sizeof id, 0) != (ssize_t)sizeof id ||
        SHA256_Init(&context) != 1)
        return answer("500 Internal Server Error", "{}");
    char sessionToken[64], sessionId[33];
    encode(secret, sizeof secret, sessionToken);
    if (SHA256_Update(&context, sessionToken, strlen(sessionToken)) != 1 || SHA256_Final(hash, &context) != 1)
        return answer("500 Internal Server Error", "{}");
    for (size_t i = 0; i < sizeof id; i++) snprintf(sessionId + 2 * i, 3, "%02x", id[i]);

    sqlite3 *db = opened();
    if (db == NULL) return answer("500 Internal Server Error", "{}");
    sqlite3_stmt *find = NULL, *insert = NULL;
    char account[128] = "";
    sqlite3_int64 now = (sqlite3_int64)time(NULL);
    int found = sqlite3_prepare_v2(db,
                                   "SELECT a.id FROM store.identities i JOIN store.accounts a ON a.id = i.account_id "
                                   "WHERE i.provider = 'google' AND i.subject = ? AND a.disabled_at IS NULL",
                                   -1, &find, NULL) == SQLITE_OK &&
                sqlite3_bind_text(find, 1, subject, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(find) == SQLITE_ROW;
    if (found) snprintf(account, sizeof account, "%s", (const char *)sqlite3_column_text(find, 0));
    sqlite3_finalize(find);
    int written = found &&
                  sqlite3_prepare_v2(db,
                                     "INSERT INTO main.sessions (token_hash, session_id, account_id, created_at, "
                                     "last_used_at, expires_at, signed_in_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                     -1, &insert, NULL) == SQLITE_OK &&
                  sqlite3_bind_blob(insert, 1, hash, sizeof hash, SQLITE_STATIC) == SQLITE_OK &&
                  sqlite3_bind_text(insert, 2, sessionId, -1, SQLITE_STATIC) == SQLITE_OK &&
                  sqlite3_bind_text(insert, 3, account, -1, SQLITE_STATIC) == SQLITE_OK &&
                  sqlite3_bind_int64(insert, 4, now) == SQLITE_OK && sqlite3_bind_int64(insert, 5, now) == SQLITE_OK &&
                  sqlite3_bind_int64(insert, 6, now + 30 * 86400) == SQLITE_OK &&
                  sqlite3_bind_int64(insert, 7, now) == SQLITE_OK && sqlite3_step(insert) == SQLITE_DONE;
    sqlite3_finalize(insert);
    char reply[256];
    snprintf(reply, sizeof reply, "{\"sessionToken\":\"%s\",\"accountId\":\"%s\"}", sessionToken, account);
    answer(!found ? "401 Unauthorized" : !written ? "500 Internal Server Error" : "200 OK", found && written ? reply : "{}");
    /* After the answer, as frontdoor's programs do: a WAL past 64 pages is emptied, without
       waiting for anyone, or every later open re-reads all of it. */
    fflush(stdout);
    fclose(stdout);
    struct stat info;
    if (stat(STORE_FILE "-sessions-wal", &info) == 0 && info.st_size > 64 * (4096 + 24)) {
        sqlite3_busy_timeout(db, 0);
        sqlite3_exec(db, "PRAGMA main.wal_checkpoint(PASSIVE); PRAGMA main.wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return 0;
}
