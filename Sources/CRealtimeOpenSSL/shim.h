#ifndef C_REALTIME_OPENSSL_SHIM_H
#define C_REALTIME_OPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/pem.h>

/* Linux event-loop APIs the Swift Glibc module does not export (used by RealtimeIO, which
   depends on this Linux-only module anyway). */
#include <sys/epoll.h>
#include <sys/eventfd.h>

/* Macros Swift cannot import, wrapped as functions. */
static inline long crealtime_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long crealtime_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long crealtime_SSL_set_mode(SSL *ssl, long mode) {
    return SSL_set_mode(ssl, mode);
}
#endif
