#ifndef GALLERY_CCRYPTO_SHIM_H
#define GALLERY_CCRYPTO_SHIM_H
/* Only the EVP digest calls: libcrypto picks the CPU's SHA instructions (sha_ni) at run time. */
#include <openssl/evp.h>
#endif
