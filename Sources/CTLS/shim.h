#ifndef GALLERY_CTLS_SHIM_H
#define GALLERY_CTLS_SHIM_H
/* libssl for fetching originals over https (OriginFetcher). The few calls OpenSSL defines as
   macros are wrapped here so Swift can call them. */
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

/* Server Name Indication: SSL_set_tlsext_host_name is a macro over SSL_ctrl. */
static inline long gallery_tls_set_sni(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

/* TLS 1.2 at least: SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl. */
static inline int gallery_tls_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
#endif
