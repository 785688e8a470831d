#ifndef GALLERY_CCRYPTO_SHIM_H
#define GALLERY_CCRYPTO_SHIM_H
/* The EVP digest calls (libcrypto picks the CPU's SHA instructions, sha_ni, at run time),
   HMAC and CRYPTO_memcmp (share links), and OPENSSL_init_crypto, to keep libcrypto from
   freeing its state in an atexit handler. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif
