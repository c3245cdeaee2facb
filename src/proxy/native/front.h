/* The native front's shared types and functions (front.c describes the program). */
#ifndef SUPERVISOR_PROXY_FRONT_H
#define SUPERVISOR_PROXY_FRONT_H
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define IN_CAP (32 * 1024)        /* a client's unrelayed bytes; a head must fit in MAX_HEAD */
#define MAX_HEAD (16 * 1024)      /* as the worker's relay: longer heads go to Node's parser */
#define MAX_RESP_HEAD (64 * 1024) /* past that a response is relayed as it is to the close */
#define READ_CHUNK (64 * 1024)
#define MAX_HOPS 5
#define MAX_TARGETS 16
#define MAX_KEPT 64

enum { HS_NONE, HS_GOING, HS_CERT }; /* a client's TLS handshake: none (over), going, waiting for its certificate */
enum { REQ_HEAD, REQ_ROUTING, REQ_CONNECTING, REQ_BODY, REQ_AWAIT };
enum { RESP_NONE, RESP_HEAD, RESP_LEN, RESP_CHUNKED, RESP_CLOSE };
enum { CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF, CH_LINE_START, CH_LINE, CH_LINE_LF, CH_END_LF, CH_DONE };

typedef struct {
  char *p;
  size_t off, len, cap; /* the bytes [off, len) */
} Buf;

typedef struct {
  int family;
  union {
    struct in_addr v4;
    struct in6_addr v6;
  } a;
  int port;
  char text[INET6_ADDRSTRLEN];
} Target;

struct Conn;
typedef struct {
  int fd;
  struct Conn *c;
  uint32_t events; /* registered with epoll */
} End;

typedef struct Conn {
  End cl, up;
  int pipe; /* handed off or a tunnel: bytes copied both ways */
  int req, resp;
  Buf in, to_cl, to_up, rhead;
  char *orig; /* the head of the request on its way (hand-offs after a failure) */
  size_t orig_len, orig_cap;
  size_t head_len;  /* the head parsed in `in`, through its empty line */
  uint64_t body_left;
  uint64_t resp_left;
  int chunk, chunk_digits;
  uint64_t chunk_left;
  int method_head, replayable, answered, hops, upgrading;
  Target target;
  int has_target;
  int cl_eof, up_eof, cl_shut_pending, up_shut_pending, closing, dead;
  int64_t cl_active, up_active;
  unsigned route_id;
  char *host; /* the Host of the request being routed */
  char *rewritten;
  size_t rewritten_len;
  char remote[INET6_ADDRSTRLEN];
  void *ssl; /* its TLS (SSL *), when the front speaks HTTPS */
  int hs;
  uint32_t hs_want;
  unsigned cert_id;
  char sni[256];
  struct Conn *prev, *next;
} Conn;

typedef struct {
  char *host;
  Target t[MAX_TARGETS];
  int n, turn;
} Kept;

/* A growing string for a rewritten head. */
typedef struct {
  char *p;
  size_t len, cap;
} Str;

extern int ep, listener, stopping;
extern const char *handoff_path;
extern int64_t idle_ms, response_ms;
extern Conn *conns, *graveyard;
extern long nconns;
extern unsigned next_route;
extern Kept kept[MAX_KEPT];
extern int nkept;
extern char rbuf[READ_CHUNK];
extern End control;
extern End listen_end;
extern const char *listen_host, *listen_port;

int64_t now_ms(void);
void say(const char *fmt, ...);
int buf_put(Buf *b, const void *p, size_t n);
size_t buf_size(const Buf *b);
void buf_take(Buf *b, size_t n);
void set_nonblock(int fd);
void str_cat(Str *s, const char *p);
int next_line(const char *h, size_t len, size_t *off, const char **line, size_t *n);
void buf_free(Buf *b);
void set_events(End *e, uint32_t events);
void close_end(End *e);
void sync_events(Conn *c);
void conn_free(Conn *c);
int send_to(Conn *c, End *e, Buf *pending, const struct iovec *iov, int n);
int send1(Conn *c, End *e, Buf *pending, const void *p, size_t n);
void hand_off(Conn *c, int code, long arg, int with_orig);
void pipe_read(Conn *c, End *from);
Kept *kept_of(const char *host);
void forget_all(void);
int listed(const char *list, size_t list_len, const char *name, size_t name_len);
int among(const char *name, size_t len, const char **set);
void str_add(Str *s, const char *p, size_t n);
void send_request(Conn *c);
void route_answered(Conn *c, Kept *k, const Target *t);
void process_client(Conn *c);
void end_client(Conn *c);
void follow(Conn *c, const char *p, size_t n);
void daemon_gone(Conn *c);
void control_readable(void);

extern int bound_port, accept_paused;
void client_readable(Conn *c);
int listen_on(const char *host, const char *port);
/* frontTls.c */
int tls_on(void);
int tls_start(void);
int tls_identity(const char *what, char *pem);
void tls_cert(unsigned id, char *pem);
void tls_handshake(Conn *c);
ssize_t cl_read(Conn *c, void *p, size_t n);
ssize_t cl_writev(Conn *c, const struct iovec *iov, int n);
void cl_shutdown(Conn *c);
void tls_free(Conn *c);
void tls_pending(void);

#endif
