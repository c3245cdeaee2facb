/*
 * TLS on the front's client side (built with FRONT_TLS and OpenSSL): the handshake with a
 * certificate per SNI name from the worker's local CA (asked for with `cert ID NAME`, answered
 * `cert ID PEM`, the PEM's newlines as commas and spaces as underscores; `-` for the default one), ALPN offering h2, then
 * http/1.1 and http/1.0. HTTP/2 connections go to the worker decrypted (hand-off code 3), plain
 * HTTP sent to the port too (code 4, answered with a pointer to https://). Without FRONT_TLS the
 * client side is the socket itself and `tls_start` says TLS is not there.
 */
#include "front.h"

#ifdef FRONT_TLS
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#define MAX_CERTS 1024

static SSL_CTX *ctx;
static EVP_PKEY *leaf_key;
static X509 *fallback;
static struct {
  char *name;
  X509 *cert; /* NULL: the fallback */
} certs[MAX_CERTS];
static int ncerts;
static unsigned char wbuf[16 * 1024];
/* Some client may hold decrypted bytes inside OpenSSL that no socket event will announce. */
static int more_inside;

int tls_on(void) { return ctx != NULL; }

static int on_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                   unsigned int inlen, void *arg) {
  (void)ssl, (void)arg;
  static const unsigned char ours[] = "\x02h2\x08http/1.1\x08http/1.0";
  unsigned char *chosen;
  if (SSL_select_next_proto(&chosen, outlen, ours, sizeof ours - 1, in, inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

/* The SNI name of a ClientHello, lower case, if it is one the worker may sign (letters, digits, -, .). */
static int sni_of(SSL *ssl, char *name, size_t cap) {
  const unsigned char *ext;
  size_t len;
  if (!SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &ext, &len) || len < 5 || ext[2] != 0) return 0;
  size_t n = ((size_t)ext[3] << 8) | ext[4];
  if (n == 0 || 5 + n > len || n >= cap) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = ext[5 + i];
    if (ch >= 'A' && ch <= 'Z') ch |= 0x20;
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.')) return 0;
    name[i] = (char)ch;
  }
  name[n] = 0;
  return 1;
}

static int cert_index(const char *name) {
  for (int i = 0; i < ncerts; i++)
    if (strcmp(certs[i].name, name) == 0) return i;
  return -1;
}

/* Before the certificate is chosen: the name's own, or the worker is asked and the handshake waits. */
static int on_hello(SSL *ssl, int *alert, void *arg) {
  (void)alert, (void)arg;
  Conn *c = SSL_get_app_data(ssl);
  char name[256];
  if (!sni_of(ssl, name, sizeof name)) return SSL_CLIENT_HELLO_SUCCESS;
  int i = cert_index(name);
  if (i >= 0) {
    if (certs[i].cert && (!SSL_use_certificate(ssl, certs[i].cert) || !SSL_use_PrivateKey(ssl, leaf_key)))
      return SSL_CLIENT_HELLO_ERROR;
    return SSL_CLIENT_HELLO_SUCCESS;
  }
  c->cert_id = next_route++;
  say("cert %u %s\n", c->cert_id, name);
  snprintf(c->sni, sizeof c->sni, "%s", name);
  return SSL_CLIENT_HELLO_RETRY;
}

/* A PEM given on a control line: its newlines as commas, its spaces as underscores. */
static BIO *pem_bio(char *text) {
  for (char *p = text; *p; p++)
    if (*p == ',') *p = '\n';
    else if (*p == '_') *p = ' ';
  return BIO_new_mem_buf(text, -1);
}

int tls_start(void) {
  ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return -1;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
  /* a record read in one read(2), not its header then its body; what comes with it waits inside */
  SSL_CTX_set_read_ahead(ctx, 1);
  SSL_CTX_set_alpn_select_cb(ctx, on_alpn, NULL);
  SSL_CTX_set_client_hello_cb(ctx, on_hello, NULL);
  return 0;
}

/* `key PEM` and `fallback PEM`: the leaves' one key, and the certificate of the TLD itself. 1: both are set. */
int tls_identity(const char *what, char *pem) {
  BIO *bio = pem_bio(pem);
  if (strcmp(what, "key") == 0) leaf_key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
  else fallback = PEM_read_bio_X509(bio, NULL, NULL, NULL);
  BIO_free(bio);
  if (!leaf_key || !fallback) return 0;
  return SSL_CTX_use_certificate(ctx, fallback) == 1 && SSL_CTX_use_PrivateKey(ctx, leaf_key) == 1;
}

/* `cert ID PEM|-`: the certificate asked for; the handshake waiting for it goes on. */
void tls_cert(unsigned id, char *pem) {
  Conn *c = conns;
  while (c && !(c->hs == HS_CERT && c->cert_id == id)) c = c->next;
  if (!c) return;
  X509 *cert = NULL;
  if (strcmp(pem, "-") != 0) {
    BIO *bio = pem_bio(pem);
    cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
  }
  if (cert_index(c->sni) < 0) {
    if (ncerts == MAX_CERTS) {
      for (int i = 0; i < ncerts; i++) free(certs[i].name), X509_free(certs[i].cert);
      ncerts = 0;
    }
    certs[ncerts].name = strdup(c->sni);
    certs[ncerts++].cert = cert;
  } else X509_free(cert);
  c->hs = HS_GOING;
  tls_handshake(c);
}

/* The handshake of a new client: the first byte says TLS or plain HTTP; then OpenSSL's steps. */
void tls_handshake(Conn *c) {
  if (!c->ssl) {
    unsigned char b;
    ssize_t r = recv(c->cl.fd, &b, 1, MSG_PEEK);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (r <= 0) return conn_free(c);
    if (b != 0x16) {
      c->hs = HS_NONE;
      return hand_off(c, 4, bound_port, 0);
    }
    SSL *ssl = SSL_new(ctx);
    if (!ssl) return conn_free(c);
    SSL_set_fd(ssl, c->cl.fd);
    SSL_set_accept_state(ssl);
    SSL_set_app_data(ssl, c);
    c->ssl = ssl;
  }
  ERR_clear_error();
  int r = SSL_do_handshake(c->ssl);
  if (r == 1) {
    c->hs = HS_NONE;
    const unsigned char *alpn;
    unsigned int len;
    SSL_get0_alpn_selected(c->ssl, &alpn, &len);
    /* a request (or HTTP/2's preface) may have come with the handshake's last flight */
    if (SSL_has_pending(c->ssl)) more_inside = 1;
    if (len == 2 && memcmp(alpn, "h2", 2) == 0) return hand_off(c, 3, 0, 0);
    return sync_events(c);
  }
  switch (SSL_get_error(c->ssl, r)) {
    case SSL_ERROR_WANT_READ:
      c->hs_want = EPOLLIN;
      break;
    case SSL_ERROR_WANT_WRITE:
      c->hs_want = EPOLLOUT;
      break;
    case SSL_ERROR_WANT_CLIENT_HELLO_CB:
      c->hs = HS_CERT;
      break;
    default:
      return conn_free(c);
  }
  sync_events(c);
}

ssize_t cl_read(Conn *c, void *p, size_t n) {
  if (!c->ssl) return read(c->cl.fd, p, n);
  ERR_clear_error();
  int r = SSL_read(c->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
  if (r > 0) {
    if (SSL_has_pending(c->ssl)) more_inside = 1;
    return r;
  }
  switch (SSL_get_error(c->ssl, r)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_ZERO_RETURN:
      return 0;
    default:
      errno = ECONNRESET;
      return -1;
  }
}

ssize_t cl_writev(Conn *c, const struct iovec *iov, int n) {
  if (!c->ssl) return writev(c->cl.fd, iov, n);
  /* one record for what fits in wbuf: the pieces of one response leave together */
  const void *p = iov[0].iov_base;
  size_t len = iov[0].iov_len;
  if (n > 1) {
    len = 0;
    for (int i = 0; i < n && len < sizeof wbuf; i++) {
      size_t k = iov[i].iov_len < sizeof wbuf - len ? iov[i].iov_len : sizeof wbuf - len;
      memcpy(wbuf + len, iov[i].iov_base, k);
      len += k;
    }
    p = wbuf;
  }
  if (len == 0) return 0;
  ERR_clear_error();
  int r = SSL_write(c->ssl, p, len > INT32_MAX ? INT32_MAX : (int)len);
  if (r > 0) return r;
  int e = SSL_get_error(c->ssl, r);
  errno = e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ ? EAGAIN : EPIPE;
  return -1;
}

void cl_shutdown(Conn *c) {
  if (c->ssl && !c->hs) SSL_shutdown(c->ssl);
  shutdown(c->cl.fd, SHUT_WR);
}

void tls_free(Conn *c) {
  SSL_free(c->ssl);
  c->ssl = NULL;
}

/*
 * Reads the clients whose decrypted bytes wait inside OpenSSL, which no event of their socket
 * announces; one not read now (its other side is full) is looked at again after the next events.
 */
void tls_pending(void) {
  if (!more_inside) return;
  more_inside = 0;
  for (Conn *c = conns, *next; c; c = next) {
    next = c->next;
    if (!c->ssl || c->hs || !SSL_has_pending(c->ssl)) continue;
    if (c->cl.events & EPOLLIN) client_readable(c);
    else more_inside = 1;
  }
}

#else

int tls_on(void) { return 0; }
int tls_start(void) { return -1; }
int tls_identity(const char *what, char *pem) { return (void)what, (void)pem, 0; }
void tls_cert(unsigned id, char *pem) { (void)id, (void)pem; }
void tls_handshake(Conn *c) { (void)c; }
ssize_t cl_read(Conn *c, void *p, size_t n) { return read(c->cl.fd, p, n); }
ssize_t cl_writev(Conn *c, const struct iovec *iov, int n) { return writev(c->cl.fd, iov, n); }
void cl_shutdown(Conn *c) { shutdown(c->cl.fd, SHUT_WR); }
void tls_free(Conn *c) { (void)c; }
void tls_pending(void) {}

#endif
