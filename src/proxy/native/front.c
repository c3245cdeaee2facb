/*
 * The proxy's native front (docs/proxy.md, "Where the proxy runs"): the plain-HTTP listener and
 * the relay of plain HTTP/1.1 requests in one epoll loop, built into dist/proxy-front where a C
 * compiler is at hand. It follows the rules of the worker's relay (src/proxy/http1/): the same
 * head checks, rewrites and body framings. What it does not relay itself (an unusual head, a
 * chunked request, a host it is told to leave, a failure to answer with a page) goes with the
 * rest of its connection to the worker over a local socket, which takes it as a new connection.
 *
 * Arguments: HOST PORT HANDOFF-SOCKET IDLE-MS RESPONSE-TIMEOUT-MS.
 * Control (front.ts): lines on stdout, `listening PORT`, `failed CODE MESSAGE`,
 * `route ID HOPS HOST`, `notaccepting`; lines on stdin, `target ID KEEP ADDR PORT [ADDR PORT]...`,
 * `node ID CODE ARG` (hand the connection over), `forget`, `stop`, `close`.
 * A hand-off starts with the line `REMOTE CODE ARG`, then the connection's bytes from the request
 * on: CODE 0 relays them, 1 relays them after forgetting the kept targets, 2 answers the failure
 * the worker keeps under ARG, 502 and 504 answer the daemon on port ARG's silence.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <netdb.h>
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
  struct Conn *prev, *next;
} Conn;

typedef struct {
  char *host;
  Target t[MAX_TARGETS];
  int n, turn;
} Kept;

static int ep, listener = -1, stopping;
static const char *handoff_path;
static int64_t idle_ms, response_ms;
static Conn *conns, *graveyard;
static long nconns;
static unsigned next_route = 1;
static Kept kept[MAX_KEPT];
static int nkept;
static char rbuf[READ_CHUNK];
static End control = {0, NULL, 0};
static End listen_end = {-1, NULL, 0};
static char ctl_line[8192];
static size_t ctl_len;

static int64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void say(const char *fmt, ...) {
  char line[8400];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  for (ssize_t off = 0; off < n;) {
    ssize_t w = write(1, line + off, n - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      exit(0); /* the worker is gone */
    }
    off += w;
  }
}

/* ---- buffers ---- */

static int buf_put(Buf *b, const void *p, size_t n) {
  if (n == 0) return 0;
  if (b->off > 0 && b->off == b->len) b->off = b->len = 0;
  if (b->len + n > b->cap) {
    if (b->off > 0) {
      memmove(b->p, b->p + b->off, b->len - b->off);
      b->len -= b->off;
      b->off = 0;
    }
    if (b->len + n > b->cap) {
      size_t cap = b->cap ? b->cap : 4096;
      while (cap < b->len + n) cap *= 2;
      char *p = realloc(b->p, cap);
      if (!p) return -1;
      b->p = p;
      b->cap = cap;
    }
  }
  memcpy(b->p + b->len, p, n);
  b->len += n;
  return 0;
}
static size_t buf_size(const Buf *b) { return b->len - b->off; }
static void buf_take(Buf *b, size_t n) {
  b->off += n;
  if (b->off >= b->len) b->off = b->len = 0;
}
static void buf_free(Buf *b) {
  free(b->p);
  b->p = NULL;
  b->off = b->len = b->cap = 0;
}

/* ---- epoll ---- */

static void set_events(End *e, uint32_t events) {
  if (e->fd < 0 || e->events == events) return;
  struct epoll_event ev = {.events = events, .data.ptr = e};
  epoll_ctl(ep, e->events == 0 ? EPOLL_CTL_ADD : (events == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD), e->fd, &ev);
  e->events = events;
}

static void close_end(End *e) {
  if (e->fd < 0) return;
  if (e->events) {
    epoll_ctl(ep, EPOLL_CTL_DEL, e->fd, NULL);
    e->events = 0;
  }
  close(e->fd);
  e->fd = -1;
}

/* What each side is polled for, from the state: a side is read only while the other takes its bytes. */
static void sync_events(Conn *c) {
  if (c->dead) return;
  if (c->cl.fd >= 0) {
    uint32_t ev = 0;
    if (!c->cl_eof && buf_size(&c->to_up) == 0 && buf_size(&c->in) < IN_CAP) ev |= EPOLLIN;
    if (buf_size(&c->to_cl) > 0) ev |= EPOLLOUT;
    set_events(&c->cl, ev);
  }
  if (c->up.fd >= 0) {
    uint32_t ev = 0;
    if (!c->up_eof && buf_size(&c->to_cl) == 0 && c->req != REQ_CONNECTING) ev |= EPOLLIN;
    if (buf_size(&c->to_up) > 0 || c->req == REQ_CONNECTING) ev |= EPOLLOUT;
    set_events(&c->up, ev);
  }
}

/*
 * Ends a connection. Its memory goes after the current round of events, which may still name it
 * (`dead` then says to skip them).
 */
static void conn_free(Conn *c) {
  if (c->dead) return;
  c->dead = 1;
  close_end(&c->cl);
  close_end(&c->up);
  buf_free(&c->in);
  buf_free(&c->to_cl);
  buf_free(&c->to_up);
  buf_free(&c->rhead);
  free(c->orig);
  free(c->host);
  free(c->rewritten);
  c->orig = c->host = c->rewritten = NULL;
  c->orig_len = c->orig_cap = 0;
  if (c->prev) c->prev->next = c->next;
  else conns = c->next;
  if (c->next) c->next->prev = c->prev;
  c->next = graveyard;
  graveyard = c;
  nconns--;
  if (stopping && nconns == 0) exit(0);
}

/* Writes to one side at once what it takes; the rest waits in its buffer. -1: the side is gone. */
static int send_to(Conn *c, End *e, Buf *pending, const struct iovec *iov, int n) {
  size_t total = 0;
  for (int i = 0; i < n; i++) total += iov[i].iov_len;
  if (total == 0) return 0;
  if (e == &c->cl) c->cl_active = now_ms();
  ssize_t w = 0;
  if (buf_size(pending) == 0 && e->fd >= 0 && !(e == &c->up && c->req == REQ_CONNECTING)) {
    do w = writev(e->fd, iov, n);
    while (w < 0 && errno == EINTR);
    if (w < 0) {
      if (errno != EAGAIN) return -1;
      w = 0;
    }
  }
  size_t skip = (size_t)w;
  for (int i = 0; i < n; i++) {
    size_t len = iov[i].iov_len;
    if (skip >= len) {
      skip -= len;
      continue;
    }
    if (buf_put(pending, (char *)iov[i].iov_base + skip, len - skip) < 0) return -1;
    skip = 0;
  }
  return 0;
}

static int send1(Conn *c, End *e, Buf *pending, const void *p, size_t n) {
  struct iovec v = {(void *)p, n};
  return send_to(c, e, pending, &v, 1);
}

/* ---- the kept targets ---- */

static Kept *kept_of(const char *host) {
  for (int i = 0; i < nkept; i++)
    if (strcasecmp(kept[i].host, host) == 0) return &kept[i];
  return NULL;
}

static void forget_all(void) {
  for (int i = 0; i < nkept; i++) free(kept[i].host);
  nkept = 0;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* ---- hand-off to the worker, and pipes ---- */

/*
 * Gives the connection to the worker's relay over the hand-off socket, from the request in `in`
 * on (with the request sent last before it, `orig`, when `with_orig`).
 */
static void hand_off(Conn *c, int code, long arg, int with_orig) {
  close_end(&c->up);
  buf_free(&c->to_up);
  buf_free(&c->rhead);
  c->up_eof = c->up_shut_pending = 0;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  size_t plen = strlen(handoff_path);
  if (plen > sizeof sa.sun_path) plen = sizeof sa.sun_path;
  memcpy(sa.sun_path, handoff_path, plen);
  if (handoff_path[0] == '@') sa.sun_path[0] = 0; /* an abstract name */
  /* Node 20 binds an abstract name padded with zeros to the whole sun_path; later ones, exactly */
  int ok = fd >= 0 && (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ||
                       (handoff_path[0] == '@' &&
                        connect(fd, (struct sockaddr *)&sa, offsetof(struct sockaddr_un, sun_path) + plen) == 0));
  if (!ok) {
    if (fd >= 0) close(fd);
    conn_free(c);
    return;
  }
  set_nonblock(fd);
  if (code == 1) forget_all();
  c->up.fd = fd;
  c->pipe = 1;
  c->req = REQ_AWAIT;
  c->resp = RESP_NONE;
  char line[128];
  int n = snprintf(line, sizeof line, "%s %d %ld\n", c->remote[0] ? c->remote : "-", code, arg);
  struct iovec v[3] = {{line, (size_t)n}, {NULL, 0}, {NULL, 0}};
  int nv = 1;
  if (with_orig && c->orig_len > 0) v[nv++] = (struct iovec){c->orig, c->orig_len};
  if (buf_size(&c->in) > 0) v[nv++] = (struct iovec){c->in.p + c->in.off, buf_size(&c->in)};
  if (send_to(c, &c->up, &c->to_up, v, nv) < 0) {
    conn_free(c);
    return;
  }
  buf_take(&c->in, buf_size(&c->in));
  if (c->cl_eof) {
    if (buf_size(&c->to_up) == 0) shutdown(fd, SHUT_WR);
    else c->up_shut_pending = 1;
  }
  sync_events(c);
}

/* Copies bytes both ways until both sides have ended (a hand-off, or a tunnel after a 101). */
static void pipe_read(Conn *c, End *from) {
  int client = from == &c->cl;
  End *to = client ? &c->up : &c->cl;
  Buf *pending = client ? &c->to_up : &c->to_cl;
  ssize_t r;
  do r = read(from->fd, rbuf, sizeof rbuf);
  while (r < 0 && errno == EINTR);
  if (r < 0) {
    if (errno != EAGAIN) conn_free(c);
    return;
  }
  if (r == 0) {
    if (client) c->cl_eof = 1;
    else c->up_eof = 1;
    /* the end goes on once what waits for the other side has gone */
    if (buf_size(pending) == 0) shutdown(to->fd, SHUT_WR);
    else if (client) c->up_shut_pending = 1;
    else c->cl_shut_pending = 1;
    if (c->cl_eof && c->up_eof && buf_size(&c->to_cl) == 0 && buf_size(&c->to_up) == 0) return conn_free(c);
    return sync_events(c);
  }
  if (send1(c, to, pending, rbuf, (size_t)r) < 0) return conn_free(c);
  sync_events(c);
}

/* ---- requests ---- */

static const char TCHAR[] = "!#$%&'*+.^_`|~-";
static int is_tchar(unsigned char ch) {
  return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch && strchr(TCHAR, ch) != NULL);
}

typedef struct {
  const char *name, *value, *line;
  size_t name_len, value_len, line_len;
} Field;

/* Splits `name: value` as the worker's relay does (head.ts FIELD); 0 when it is not one. */
static int field_of(const char *line, size_t len, Field *f) {
  size_t i = 0;
  while (i < len && is_tchar((unsigned char)line[i])) i++;
  if (i == 0 || i >= len || line[i] != ':') return 0;
  f->name = line;
  f->name_len = i;
  size_t v = i + 1, e = len;
  while (v < e && (line[v] == ' ' || line[v] == '\t')) v++;
  for (size_t k = v; k < e; k++) {
    unsigned char ch = (unsigned char)line[k];
    if ((ch <= 0x08) || (ch >= 0x0a && ch <= 0x1f) || ch == 0x7f) return 0;
  }
  while (e > v && (line[e - 1] == ' ' || line[e - 1] == '\t')) e--;
  f->value = line + v;
  f->value_len = e - v;
  f->line = line;
  f->line_len = len;
  return 1;
}

static int name_is(const Field *f, const char *name) {
  return f->name_len == strlen(name) && strncasecmp(f->name, name, f->name_len) == 0;
}

/* Whether `name` is among the comma-separated tokens of `list` (case-insensitive, trimmed). */
static int listed(const char *list, size_t list_len, const char *name, size_t name_len) {
  size_t i = 0;
  while (i <= list_len) {
    size_t j = i;
    while (j < list_len && list[j] != ',') j++;
    size_t a = i, b = j;
    while (a < b && (list[a] == ' ' || list[a] == '\t')) a++;
    while (b > a && (list[b - 1] == ' ' || list[b - 1] == '\t')) b--;
    if (b - a == name_len && name_len > 0 && strncasecmp(list + a, name, name_len) == 0) return 1;
    i = j + 1;
  }
  return 0;
}

static const char *HOP_REQUEST[] = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                                    "proxy-authorization", "te", "upgrade", "http2-settings",
                                    "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto",
                                    "x-supervisor-hops", NULL};
static const char *HOP_RESPONSE[] = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                                     "te", "upgrade", "http2-settings", NULL};

static int among(const char *name, size_t len, const char **set) {
  for (int i = 0; set[i]; i++)
    if (strlen(set[i]) == len && strncasecmp(set[i], name, len) == 0) return 1;
  return 0;
}

static const char *IDEMPOTENT[] = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", NULL};

/* A growing string for a rewritten head. */
typedef struct {
  char *p;
  size_t len, cap;
} Str;
static void str_add(Str *s, const char *p, size_t n) {
  if (s->len + n + 1 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 1024;
    while (cap < s->len + n + 1) cap *= 2;
    s->p = realloc(s->p, cap);
    s->cap = cap;
  }
  memcpy(s->p + s->len, p, n);
  s->len += n;
}
static void str_cat(Str *s, const char *p) { str_add(s, p, strlen(p)); }

/*
 * Reads the request head at the start of `in` (head_len bytes with its empty line) as head.ts's
 * parseRequestHead does, and builds the head to send in `rewritten`. 0: the worker's relay takes
 * it (anything unusual, a chunked body, an upgrade, a loop).
 */
static int parse_request(Conn *c) {
  const char *h = c->in.p + c->in.off;
  size_t end = c->head_len - 4;
  const char *eol = memmem(h, end, "\r\n", 2);
  size_t l0 = eol ? (size_t)(eol - h) : end;
  /* the request line: METHOD SP TARGET SP HTTP/1.1 */
  size_t m = 0;
  while (m < l0 && is_tchar((unsigned char)h[m])) m++;
  if (m == 0 || m >= l0 || h[m] != ' ') return 0;
  if (l0 < 9 || memcmp(h + l0 - 9, " HTTP/1.1", 9) != 0) return 0;
  size_t t0 = m + 1, t1 = l0 - 9;
  if (t1 <= t0) return 0;
  for (size_t k = t0; k < t1; k++) {
    unsigned char ch = (unsigned char)h[k];
    if (ch <= 0x20 || ch == 0x7f) return 0;
  }
  if (m == 7 && memcmp(h, "CONNECT", 7) == 0) return 0;
  const char *host = NULL, *ff = NULL, *conn_list = NULL;
  size_t host_len = 0, ff_len = 0, conn_len = 0;
  int has_length = 0, chunked = 0, hops = 0, nff = 0, nconn = 0;
  uint64_t length = 0;
  /* first pass: checks and the values the rewrite needs */
  Str ffs = {0}, conns_s = {0};
  for (size_t off = l0 + 2; off <= end && l0 < end;) {
    const char *ln = h + off;
    const char *e2 = memmem(ln, end - off, "\r\n", 2);
    size_t len = e2 ? (size_t)(e2 - ln) : end - off;
    Field f;
    if (!field_of(ln, len, &f)) goto other;
    if (name_is(&f, "host")) {
      if (host) goto other;
      host = f.value;
      host_len = f.value_len;
    } else if (name_is(&f, "content-length")) {
      if (has_length || f.value_len == 0 || f.value_len > 15) goto other;
      for (size_t k = 0; k < f.value_len; k++)
        if (f.value[k] < '0' || f.value[k] > '9') goto other;
      has_length = 1;
      length = strtoull(f.value, NULL, 10);
    } else if (name_is(&f, "transfer-encoding")) {
      chunked = 1; /* the worker's relay follows chunked requests */
    } else if (name_is(&f, "connection")) {
      if (nconn++) str_cat(&conns_s, ",");
      str_add(&conns_s, f.value, f.value_len);
    } else if (name_is(&f, "upgrade")) {
      goto other;
    } else if (name_is(&f, "x-forwarded-for")) {
      if (nff++) str_cat(&ffs, ", ");
      str_add(&ffs, f.value, f.value_len);
    } else if (name_is(&f, "x-supervisor-hops")) {
      /* Number.parseInt: an optional sign and the leading digits */
      long n = 0;
      size_t k = 0;
      int neg = 0;
      if (k < f.value_len && (f.value[k] == '+' || f.value[k] == '-')) neg = f.value[k++] == '-';
      int digits = 0;
      while (k < f.value_len && f.value[k] >= '0' && f.value[k] <= '9' && n < 1000000) n = n * 10 + (f.value[k++] - '0'), digits++;
      hops = digits && !neg && n > 0 ? (int)n : 0;
    }
    off += len + 2;
  }
  if (!host || host_len == 0 || chunked || hops >= MAX_HOPS) goto other;
  ff = ffs.p;
  ff_len = ffs.len;
  conn_list = conns_s.p;
  conn_len = conns_s.len;
  /* the head sent on: the request line and the end-to-end lines as received, then the proxy's */
  Str out = {0};
  str_add(&out, h, l0);
  for (size_t off = l0 + 2; off <= end && l0 < end;) {
    const char *ln = h + off;
    const char *e2 = memmem(ln, end - off, "\r\n", 2);
    size_t len = e2 ? (size_t)(e2 - ln) : end - off;
    Field f;
    field_of(ln, len, &f);
    if (!among(f.name, f.name_len, HOP_REQUEST) && !(conn_len && listed(conn_list, conn_len, f.name, f.name_len))) {
      str_cat(&out, "\r\n");
      str_add(&out, ln, len);
    }
    off += len + 2;
  }
  str_cat(&out, "\r\nx-forwarded-for: ");
  if (ff_len) {
    str_add(&out, ff, ff_len);
    str_cat(&out, ", ");
  }
  str_cat(&out, c->remote);
  str_cat(&out, "\r\nx-forwarded-host: ");
  str_add(&out, host, host_len);
  char tail[96];
  snprintf(tail, sizeof tail, "\r\nx-forwarded-proto: http\r\nx-supervisor-hops: %d\r\n\r\n", hops + 1);
  str_cat(&out, tail);
  free(c->rewritten);
  c->rewritten = out.p;
  c->rewritten_len = out.len;
  free(c->host);
  c->host = strndup(host, host_len);
  c->hops = hops;
  c->body_left = has_length ? length : 0;
  c->method_head = m == 4 && memcmp(h, "HEAD", 4) == 0;
  c->replayable = 0;
  if (c->body_left == 0)
    for (int i = 0; IDEMPOTENT[i]; i++)
      if (strlen(IDEMPOTENT[i]) == m && memcmp(IDEMPOTENT[i], h, m) == 0) c->replayable = 1;
  free(ffs.p);
  free(conns_s.p);
  return 1;
other:
  free(ffs.p);
  free(conns_s.p);
  return 0;
}

static void process_client(Conn *c);
static void send_request(Conn *c);
static void daemon_gone(Conn *c);

static int target_equal(const Target *a, const Target *b) {
  return a->family == b->family && a->port == b->port &&
         (a->family == AF_INET ? a->a.v4.s_addr == b->a.v4.s_addr : memcmp(&a->a.v6, &b->a.v6, sizeof a->a.v6) == 0);
}

/* Connects to the target for the parsed request (or sends it on the open connection to it). */
static void go_to(Conn *c, const Target *t) {
  if (c->up.fd >= 0 && c->has_target && target_equal(&c->target, t) && !c->up_eof) return send_request(c);
  /* another daemon (or none open): a new connection */
  close_end(&c->up);
  buf_free(&c->to_up);
  c->up_eof = 0;
  c->answered = 0;
  c->target = *t;
  c->has_target = 1;
  int fd = socket(t->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return hand_off(c, 1, 0, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int r;
  if (t->family == AF_INET) {
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(t->port), .sin_addr = t->a.v4};
    r = connect(fd, (struct sockaddr *)&sa, sizeof sa);
  } else {
    struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_port = htons(t->port), .sin6_addr = t->a.v6};
    r = connect(fd, (struct sockaddr *)&sa, sizeof sa);
  }
  if (r < 0 && errno != EINPROGRESS) {
    close(fd);
    /* the worker routes it again: the daemon may have moved, or be down (its page) */
    return hand_off(c, 1, 0, 0);
  }
  c->up.fd = fd;
  c->up.events = 0;
  c->up_active = now_ms();
  if (r == 0) return send_request(c);
  c->req = REQ_CONNECTING;
  sync_events(c);
}

/* The connection to the daemon is up: the head goes, with the body bytes read so far. */
static void send_request(Conn *c) {
  size_t head = c->head_len;
  if (c->orig_cap < head) {
    free(c->orig);
    c->orig = malloc(head);
    c->orig_cap = head;
  }
  memcpy(c->orig, c->in.p + c->in.off, head);
  c->orig_len = head;
  buf_take(&c->in, head);
  size_t avail = buf_size(&c->in);
  size_t body = avail < c->body_left ? avail : (size_t)c->body_left;
  struct iovec v[2] = {{c->rewritten, c->rewritten_len}, {c->in.p + c->in.off, body}};
  c->resp = RESP_HEAD;
  c->up_active = now_ms();
  c->req = c->body_left > body ? REQ_BODY : REQ_AWAIT;
  c->body_left -= body;
  int failed = send_to(c, &c->up, &c->to_up, v, body ? 2 : 1) < 0;
  buf_take(&c->in, body);
  if (c->req == REQ_AWAIT && c->resp == RESP_NONE) c->req = REQ_HEAD;
  /* the daemon's side is gone: as a close before the response */
  if (failed) return daemon_gone(c);
  sync_events(c);
}

static void route_answered(Conn *c, Kept *k, const Target *t) {
  c->req = REQ_HEAD;
  if (k) {
    const Target *next = &k->t[k->turn % k->n];
    k->turn = (k->turn + 1) % k->n;
    return go_to(c, next);
  }
  go_to(c, t);
}

/* Relays what the client sent while the relay can: heads are read and routed, bodies passed on. */
static void process_client(Conn *c) {
  for (;;) {
    if (c->pipe || c->dead || c->closing) return;
    size_t avail = buf_size(&c->in);
    if (c->req == REQ_BODY) {
      if (avail == 0) return;
      size_t n = avail < c->body_left ? avail : (size_t)c->body_left;
      int failed = send1(c, &c->up, &c->to_up, c->in.p + c->in.off, n) < 0;
      buf_take(&c->in, n);
      c->body_left -= n;
      /* the response may have come before the body's end */
      if (c->body_left == 0) c->req = c->resp == RESP_NONE ? REQ_HEAD : REQ_AWAIT;
      if (failed) return daemon_gone(c);
      continue;
    }
    if (c->req != REQ_HEAD || c->resp != RESP_NONE || avail == 0) return;
    const char *p = c->in.p + c->in.off;
    const char *e = memmem(p, avail, "\r\n\r\n", 4);
    if (!e) {
      if (avail > MAX_HEAD) return hand_off(c, 0, 0, 0);
      return;
    }
    c->head_len = (size_t)(e - p) + 4;
    if (!parse_request(c)) return hand_off(c, 0, 0, 0);
    Kept *k = kept_of(c->host);
    if (k) return route_answered(c, k, NULL);
    c->route_id = next_route++;
    c->req = REQ_ROUTING;
    say("route %u %d %s\n", c->route_id, c->hops, c->host);
    return;
  }
}

/* ---- responses ---- */

static int chunk_hex(unsigned char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  ch |= 0x20;
  return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Feeds a chunked body (body.ts ChunkedBody): how many bytes belong to it, -1 when it is broken. */
static ssize_t chunk_feed(Conn *c, const char *p, size_t n) {
  size_t i = 0;
  while (i < n && c->chunk != CH_DONE) {
    if (c->chunk == CH_DATA) {
      size_t k = n - i < c->chunk_left ? n - i : (size_t)c->chunk_left;
      c->chunk_left -= k;
      i += k;
      if (c->chunk_left == 0) c->chunk = CH_DATA_CR;
      continue;
    }
    unsigned char ch = (unsigned char)p[i++];
    switch (c->chunk) {
      case CH_SIZE: {
        int v = chunk_hex(ch);
        if (v >= 0) {
          if (++c->chunk_digits > 15) return -1;
          c->chunk_left = c->chunk_left * 16 + v;
        } else if (c->chunk_digits == 0) return -1;
        else if (ch == '\r') c->chunk = CH_SIZE_LF;
        else if (ch == ';' || ch == ' ' || ch == '\t') c->chunk = CH_EXT;
        else return -1;
        break;
      }
      case CH_EXT:
        if (ch == '\r') c->chunk = CH_SIZE_LF;
        else if (ch == '\n') return -1;
        break;
      case CH_SIZE_LF:
        if (ch != '\n') return -1;
        c->chunk_digits = 0;
        c->chunk = c->chunk_left == 0 ? CH_LINE_START : CH_DATA;
        break;
      case CH_DATA_CR:
        if (ch != '\r') return -1;
        c->chunk = CH_DATA_LF;
        break;
      case CH_DATA_LF:
        if (ch != '\n') return -1;
        c->chunk = CH_SIZE;
        break;
      case CH_LINE_START:
        if (ch == '\r') c->chunk = CH_END_LF;
        else if (ch == '\n') return -1;
        else c->chunk = CH_LINE;
        break;
      case CH_LINE:
        if (ch == '\r') c->chunk = CH_LINE_LF;
        else if (ch == '\n') return -1;
        break;
      case CH_LINE_LF:
        if (ch != '\n') return -1;
        c->chunk = CH_LINE_START;
        break;
      case CH_END_LF:
        if (ch != '\n') return -1;
        c->chunk = CH_DONE;
        break;
    }
  }
  return (ssize_t)i;
}

typedef struct {
  int status;
  int framing; /* RESP_LEN, RESP_CHUNKED or RESP_CLOSE */
  uint64_t length;
} RespHead;

static void trim(const char **p, size_t *n) {
  while (*n && (unsigned char)**p <= ' ') (*p)++, (*n)--;
  while (*n && (unsigned char)(*p)[*n - 1] <= ' ') (*n)--;
}

/*
 * Reads a response head (`h`, `len` bytes without the empty line) as head.ts's parseResponseHead
 * does; the head without the daemon's connection headers goes into `out` when it had any.
 */
static RespHead parse_response(const char *h, size_t len, Str *out, int *rewritten) {
  RespHead r = {0, RESP_CLOSE, 0};
  *rewritten = 0;
  if (len < 12 || memcmp(h, "HTTP/1.", 7) != 0 || (h[7] != '0' && h[7] != '1') || h[8] != ' ') return r;
  for (int k = 9; k < 12; k++)
    if (h[k] < '0' || h[k] > '9') return r;
  r.status = (h[9] - '0') * 100 + (h[10] - '0') * 10 + (h[11] - '0');
  const char *length = NULL, *conn_list = NULL;
  size_t length_len = 0;
  Str enc = {0}, conns_s = {0};
  int has_enc = 0, hop = 0;
  const char *eol = memmem(h, len, "\r\n", 2);
  size_t l0 = eol ? (size_t)(eol - h) : len;
  for (size_t off = l0 + 2; off < len + 2 && l0 < len;) {
    const char *ln = h + off;
    const char *e2 = memmem(ln, len - off, "\r\n", 2);
    size_t n = e2 ? (size_t)(e2 - ln) : len - off;
    off += n + 2;
    const char *colon = memchr(ln, ':', n);
    if (!colon) continue;
    const char *name = ln;
    size_t name_len = (size_t)(colon - ln);
    trim(&name, &name_len);
    const char *value = colon + 1;
    size_t value_len = n - (size_t)(colon - ln) - 1;
    if (name_len == 14 && strncasecmp(name, "content-length", 14) == 0) {
      trim(&value, &value_len);
      int ok = value_len > 0 && value_len <= 15;
      for (size_t k = 0; ok && k < value_len; k++) ok = value[k] >= '0' && value[k] <= '9';
      if (!ok || (length && (length_len != value_len || memcmp(length, value, value_len) != 0))) {
        free(enc.p);
        free(conns_s.p);
        r.framing = RESP_CLOSE;
        return r;
      }
      length = value;
      length_len = value_len;
    } else if (name_len == 17 && strncasecmp(name, "transfer-encoding", 17) == 0) {
      trim(&value, &value_len);
      if (has_enc++) str_cat(&enc, ", ");
      str_add(&enc, value, value_len);
    } else if (among(name, name_len, HOP_RESPONSE)) {
      hop = 1;
      if (name_len == 10 && strncasecmp(name, "connection", 10) == 0) {
        str_cat(&conns_s, ",");
        str_add(&conns_s, value, value_len);
      }
    }
  }
  if (has_enc) {
    const char *e = enc.p;
    size_t n = enc.len;
    trim(&e, &n);
    r.framing = n >= 7 && strncasecmp(e + n - 7, "chunked", 7) == 0 ? RESP_CHUNKED : RESP_CLOSE;
  } else if (length) {
    r.framing = RESP_LEN;
    r.length = strtoull(length, NULL, 10);
  } else r.framing = RESP_CLOSE;
  free(enc.p);
  if (!hop || r.status == 101) {
    free(conns_s.p);
    return r;
  }
  conn_list = conns_s.p;
  size_t conn_len = conns_s.len;
  *rewritten = 1;
  str_add(out, h, l0);
  for (size_t off = l0 + 2; off < len + 2 && l0 < len;) {
    const char *ln = h + off;
    const char *e2 = memmem(ln, len - off, "\r\n", 2);
    size_t n = e2 ? (size_t)(e2 - ln) : len - off;
    off += n + 2;
    const char *colon = memchr(ln, ':', n);
    /* a line without a colon is dropped: the names Connection lists always include "" */
    if (!colon) continue;
    const char *name = ln;
    size_t name_len = (size_t)(colon - ln);
    trim(&name, &name_len);
    if (among(name, name_len, HOP_RESPONSE)) continue;
    if (listed(conn_list, conn_len, name, name_len) && !(name_len == 17 && strncasecmp(name, "transfer-encoding", 17) == 0) &&
        !(name_len == 14 && strncasecmp(name, "content-length", 14) == 0))
      continue;
    if (name_len == 0) continue;
    str_cat(out, "\r\n");
    str_add(out, ln, n);
  }
  str_cat(out, "\r\n\r\n");
  free(conns_s.p);
  return r;
}

static void end_client(Conn *c) {
  c->closing = 1;
  if (buf_size(&c->to_cl) == 0) return conn_free(c);
  c->cl_eof = 1;
  sync_events(c);
}

/* The response ended: the next request may go (or the connection ends). */
static void response_done(Conn *c) {
  c->resp = RESP_NONE;
  c->answered++;
  buf_free(&c->rhead);
  if (c->req == REQ_BODY) return;
  c->req = REQ_HEAD;
}

#define MAX_OUT 16

/* What one read of the daemon sends the client: pieces of the read and rewritten heads. */
typedef struct {
  struct iovec v[MAX_OUT];
  Str heads[MAX_OUT];
  int n, nheads;
} Out;

static int out_flush(Conn *c, Out *o) {
  int r = send_to(c, &c->cl, &c->to_cl, o->v, o->n);
  for (int i = 0; i < o->nheads; i++) free(o->heads[i].p);
  o->n = o->nheads = 0;
  return r;
}

/*
 * The daemon's bytes: heads are read (and lose the daemon's connection headers), bodies passed
 * on while their framing says where each response ends. What one read sends the client leaves
 * in one write.
 */
static void follow(Conn *c, const char *p, size_t n) {
  Out o;
  o.n = o.nheads = 0;
  int done = 0, tunnel = 0;
  while (n > 0 && !done && !tunnel) {
    if (o.n >= MAX_OUT - 1 && out_flush(c, &o) < 0) return conn_free(c);
    if (c->resp == RESP_NONE) break; /* bytes no request asked for */
    if (c->resp == RESP_CLOSE) {
      o.v[o.n++] = (struct iovec){(void *)p, n};
      n = 0;
      break;
    }
    if (c->resp == RESP_LEN) {
      size_t k = n < c->resp_left ? n : (size_t)c->resp_left;
      o.v[o.n++] = (struct iovec){(void *)p, k};
      p += k, n -= k;
      c->resp_left -= k;
      if (c->resp_left == 0) response_done(c), done = 1;
      continue;
    }
    if (c->resp == RESP_CHUNKED) {
      ssize_t k = chunk_feed(c, p, n);
      if (k < 0) {
        c->resp = RESP_CLOSE; /* broken framing: relayed as it is until the daemon closes */
        continue;
      }
      o.v[o.n++] = (struct iovec){(void *)p, (size_t)k};
      p += k, n -= (size_t)k;
      if (c->chunk == CH_DONE) response_done(c), done = 1;
      continue;
    }
    /* RESP_HEAD: the head is in this read, or completes one begun in rhead */
    const char *h = p;
    size_t hn, used;
    if (buf_size(&c->rhead) > 0) {
      size_t before = buf_size(&c->rhead);
      /* rhead may move: nothing may point into it while it grows */
      if (out_flush(c, &o) < 0 || buf_put(&c->rhead, p, n) < 0) return conn_free(c);
      h = c->rhead.p + c->rhead.off;
      size_t all = buf_size(&c->rhead);
      const char *e = memmem(h, all, "\r\n\r\n", 4);
      if (!e) {
        if (all > MAX_RESP_HEAD) {
          c->resp = RESP_CLOSE;
          o.v[o.n++] = (struct iovec){(void *)h, all};
          c->rhead.off = c->rhead.len = 0;
        }
        n = 0;
        break;
      }
      hn = (size_t)(e - h) + 4;
      used = hn - before;
      c->rhead.off = c->rhead.len = 0; /* its bytes stay valid until the next put */
    } else {
      const char *e = memmem(p, n, "\r\n\r\n", 4);
      if (!e) {
        if (n > MAX_RESP_HEAD) {
          c->resp = RESP_CLOSE;
          o.v[o.n++] = (struct iovec){(void *)p, n};
        } else if (out_flush(c, &o) < 0 || buf_put(&c->rhead, p, n) < 0) return conn_free(c);
        n = 0;
        break;
      }
      hn = (size_t)(e - p) + 4;
      used = hn;
    }
    Str *s = &o.heads[o.nheads];
    *s = (Str){0};
    int rewritten;
    RespHead r = parse_response(h, hn - 4, s, &rewritten);
    if (rewritten) {
      o.nheads++;
      o.v[o.n++] = (struct iovec){s->p, s->len};
    } else {
      free(s->p);
      o.v[o.n++] = (struct iovec){(void *)h, hn};
    }
    p += used, n -= used;
    c->up_active = now_ms();
    if (r.status == 101) {
      tunnel = 1;
      break;
    }
    if (r.status >= 100 && r.status < 200) continue; /* an interim response: the final one follows */
    if (c->method_head || r.status == 204 || r.status == 304 || (r.framing == RESP_LEN && r.length == 0)) {
      response_done(c);
      done = 1;
    } else if (r.framing == RESP_CLOSE) c->resp = RESP_CLOSE;
    else if (r.framing == RESP_LEN) c->resp = RESP_LEN, c->resp_left = r.length;
    else c->resp = RESP_CHUNKED, c->chunk = CH_SIZE, c->chunk_left = 0, c->chunk_digits = 0;
  }
  if (out_flush(c, &o) < 0) return conn_free(c);
  if (buf_size(&c->rhead) == 0) buf_free(&c->rhead);
  if (tunnel) {
    c->pipe = 1;
    if (n > 0 && send1(c, &c->cl, &c->to_cl, p, n) < 0) return conn_free(c);
    if (buf_size(&c->in) > 0) {
      if (send1(c, &c->up, &c->to_up, c->in.p + c->in.off, buf_size(&c->in)) < 0) return conn_free(c);
      buf_take(&c->in, buf_size(&c->in));
    }
    return sync_events(c);
  }
  if (n > 0 && c->resp == RESP_NONE) close_end(&c->up); /* bytes no request asked for */
  if (done && c->req == REQ_HEAD) {
    if (c->cl_eof || stopping) return end_client(c);
    process_client(c);
  }
  sync_events(c);
}

/* The daemon closed its side, or its connection failed. */
static void daemon_gone(Conn *c) {
  close_end(&c->up);
  buf_free(&c->to_up);
  int port = c->has_target ? c->target.port : 0;
  if (c->req == REQ_CONNECTING) return hand_off(c, 1, 0, 0);
  if (c->resp == RESP_CLOSE) return end_client(c);
  if (c->resp == RESP_NONE) return; /* idle: the next request opens another */
  if (buf_size(&c->rhead) > 0 || c->resp != RESP_HEAD) {
    /* a response cut short */
    return conn_free(c);
  }
  /* nothing of the answer came */
  if (c->req == REQ_BODY) return hand_off(c, 502, port, 1);
  if (c->replayable) return hand_off(c, c->answered > 0 ? 0 : 1, 0, 1);
  hand_off(c, 502, port, 1);
}

/* ---- events ---- */

static void client_readable(Conn *c) {
  if (c->pipe) return pipe_read(c, &c->cl);
  if (c->in.cap == 0) {
    c->in.p = malloc(IN_CAP);
    c->in.cap = IN_CAP;
  }
  if (c->in.off > 0) {
    memmove(c->in.p, c->in.p + c->in.off, buf_size(&c->in));
    c->in.len -= c->in.off;
    c->in.off = 0;
  }
  ssize_t r;
  do r = read(c->cl.fd, c->in.p + c->in.len, c->in.cap - c->in.len);
  while (r < 0 && errno == EINTR);
  if (r < 0) {
    if (errno != EAGAIN) conn_free(c);
    return;
  }
  c->cl_active = now_ms();
  if (r == 0) {
    c->cl_eof = 1;
    if (c->req == REQ_HEAD && c->resp == RESP_NONE) return end_client(c);
    if (c->req == REQ_BODY && c->up.fd >= 0) shutdown(c->up.fd, SHUT_WR);
    return sync_events(c);
  }
  c->in.len += (size_t)r;
  process_client(c);
  if (c->cl.fd >= 0 && !c->closing) sync_events(c);
}

static void daemon_readable(Conn *c) {
  if (c->pipe) return pipe_read(c, &c->up);
  ssize_t r;
  do r = read(c->up.fd, rbuf, sizeof rbuf);
  while (r < 0 && errno == EINTR);
  if (r < 0) {
    if (errno == EAGAIN) return;
    return daemon_gone(c);
  }
  if (r == 0) {
    c->up_eof = 1;
    return daemon_gone(c);
  }
  c->up_active = now_ms();
  follow(c, rbuf, (size_t)r);
}

/* A side takes bytes again: what waited goes, and its source is read again. */
static void writable(Conn *c, End *e) {
  int client = e == &c->cl;
  if (!client && c->req == REQ_CONNECTING) {
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(e->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err) return hand_off(c, 1, 0, 0);
    send_request(c);
    return;
  }
  Buf *b = client ? &c->to_cl : &c->to_up;
  while (buf_size(b) > 0) {
    ssize_t w = write(e->fd, b->p + b->off, buf_size(b));
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      return conn_free(c);
    }
    buf_take(b, (size_t)w);
    if (client) c->cl_active = now_ms();
  }
  if (buf_size(b) == 0) {
    buf_free(b);
    if (client && c->closing) return conn_free(c);
    if (client && c->cl_shut_pending) shutdown(c->cl.fd, SHUT_WR), c->cl_shut_pending = 0;
    if (!client && c->up_shut_pending) shutdown(c->up.fd, SHUT_WR), c->up_shut_pending = 0;
    if (c->pipe && c->cl_eof && c->up_eof && buf_size(&c->to_cl) == 0 && buf_size(&c->to_up) == 0) return conn_free(c);
  }
  sync_events(c);
}

/* Whether `fd` has really hung up (an event of a round may be an earlier socket's of the same number). */
static int hung_up(int fd) {
  struct pollfd p = {.fd = fd, .events = 0};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

static void accept_all(void) {
  for (;;) {
    union {
      struct sockaddr_storage s;
      struct sockaddr_in v4;
      struct sockaddr_in6 v6;
    } sa;
    socklen_t len = sizeof sa;
    int fd = accept4(listener, (struct sockaddr *)&sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    Conn *c = calloc(1, sizeof *c);
    if (!c) {
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    if (sa.s.ss_family == AF_INET) inet_ntop(AF_INET, &sa.v4.sin_addr, c->remote, sizeof c->remote);
    else if (sa.s.ss_family == AF_INET6) {
      if (IN6_IS_ADDR_V4MAPPED(&sa.v6.sin6_addr)) inet_ntop(AF_INET, &sa.v6.sin6_addr.s6_addr[12], c->remote, sizeof c->remote);
      else inet_ntop(AF_INET6, &sa.v6.sin6_addr, c->remote, sizeof c->remote);
    }
    c->cl = (End){fd, c, 0};
    c->up = (End){-1, c, 0};
    c->cl_active = now_ms();
    c->next = conns;
    if (conns) conns->prev = c;
    conns = c;
    nconns++;
    sync_events(c);
  }
}

/* Closes idle clients and answers requests whose daemon stays silent (504). */
static void check_timers(void) {
  int64_t now = now_ms();
  for (Conn *c = conns, *next; c; c = next) {
    next = c->next;
    if (c->pipe || c->closing) continue;
    if (c->req == REQ_HEAD && c->resp == RESP_NONE && now - c->cl_active >= idle_ms) conn_free(c);
    else if (c->resp == RESP_HEAD && buf_size(&c->rhead) == 0 && (c->req == REQ_AWAIT || c->req == REQ_BODY) &&
             now - c->up_active >= response_ms)
      hand_off(c, 504, c->target.port, 1);
  }
}

/* ---- control ---- */

static Conn *routing(unsigned id) {
  for (Conn *c = conns; c; c = c->next)
    if (c->req == REQ_ROUTING && c->route_id == id) return c;
  return NULL;
}

static int parse_target(char **save, Target *t) {
  char *addr = strtok_r(NULL, " ", save), *port = strtok_r(NULL, " ", save);
  if (!addr || !port) return 0;
  memset(t, 0, sizeof *t);
  t->port = atoi(port);
  snprintf(t->text, sizeof t->text, "%s", addr);
  if (inet_pton(AF_INET, addr, &t->a.v4) == 1) t->family = AF_INET;
  else if (inet_pton(AF_INET6, addr, &t->a.v6) == 1) t->family = AF_INET6;
  else return 0;
  return t->port > 0 && t->port < 65536;
}

static void stop_accepting(void) {
  if (listener >= 0) {
    epoll_ctl(ep, EPOLL_CTL_DEL, listener, NULL);
    close(listener);
    listener = -1;
  }
  say("notaccepting\n");
  stopping = 1;
  if (nconns == 0) exit(0);
  /* the idle ones end; the others when their response has gone */
  for (Conn *c = conns, *next; c; c = next) {
    next = c->next;
    if (!c->pipe && c->req == REQ_HEAD && c->resp == RESP_NONE && buf_size(&c->in) == 0) conn_free(c);
  }
}

static void control_line(char *line) {
  char *save = NULL;
  char *word = strtok_r(line, " ", &save);
  if (!word) return;
  if (strcmp(word, "target") == 0) {
    char *id = strtok_r(NULL, " ", &save), *keep = strtok_r(NULL, " ", &save);
    if (!id || !keep) return;
    Conn *c = routing((unsigned)strtoul(id, NULL, 10));
    Target ts[MAX_TARGETS];
    int n = 0;
    while (n < MAX_TARGETS && parse_target(&save, &ts[n])) n++;
    if (!c) return;
    if (n == 0) return hand_off(c, 0, 0, 0);
    Kept *k = NULL;
    if (atoi(keep) == 1) {
      k = kept_of(c->host);
      if (!k) {
        if (nkept == MAX_KEPT) forget_all();
        k = &kept[nkept++];
        k->host = strdup(c->host);
        k->turn = 0;
      }
      memcpy(k->t, ts, sizeof(Target) * n);
      k->n = n;
      if (k->turn >= n) k->turn = 0;
    }
    route_answered(c, k, &ts[0]);
  } else if (strcmp(word, "node") == 0) {
    char *id = strtok_r(NULL, " ", &save), *code = strtok_r(NULL, " ", &save), *arg = strtok_r(NULL, " ", &save);
    if (!id || !code) return;
    Conn *c = routing((unsigned)strtoul(id, NULL, 10));
    if (c) hand_off(c, atoi(code), arg ? atol(arg) : 0, 0);
  } else if (strcmp(word, "forget") == 0) {
    forget_all();
  } else if (strcmp(word, "stop") == 0) {
    stop_accepting();
  } else if (strcmp(word, "close") == 0) {
    exit(0);
  }
}

static void control_readable(void) {
  ssize_t r = read(0, ctl_line + ctl_len, sizeof ctl_line - ctl_len);
  if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (r <= 0) exit(0); /* the worker is gone */
  ctl_len += (size_t)r;
  char *start = ctl_line, *nl;
  while ((nl = memchr(start, '\n', ctl_len - (size_t)(start - ctl_line)))) {
    *nl = 0;
    control_line(start);
    start = nl + 1;
  }
  ctl_len -= (size_t)(start - ctl_line);
  memmove(ctl_line, start, ctl_len);
  if (ctl_len == sizeof ctl_line) ctl_len = 0; /* a line longer than any command */
}

static int listen_on(const char *host, const char *port) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV};
  struct addrinfo *ai;
  int e = getaddrinfo(host, port, &hints, &ai);
  if (e != 0) {
    say("failed EINVAL %s\n", gai_strerror(e));
    return -1;
  }
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 511) < 0) {
    int err = errno;
    say("failed %s %s\n", err == EADDRINUSE ? "EADDRINUSE" : err == EACCES ? "EACCES" : "EOTHER", strerror(err));
    freeaddrinfo(ai);
    return -1;
  }
  freeaddrinfo(ai);
  union {
    struct sockaddr_storage s;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
  } sa;
  socklen_t len = sizeof sa;
  getsockname(fd, (struct sockaddr *)&sa, &len);
  listener = fd;
  say("listening %d\n", ntohs(sa.s.ss_family == AF_INET ? sa.v4.sin_port : sa.v6.sin6_port));
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: proxy-front HOST PORT HANDOFF-SOCKET IDLE-MS RESPONSE-TIMEOUT-MS\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  handoff_path = argv[3];
  idle_ms = atoll(argv[4]);
  response_ms = atoll(argv[5]);
  ep = epoll_create1(EPOLL_CLOEXEC);
  if (listen_on(argv[1], argv[2]) < 0) return 1;
  set_nonblock(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &control};
  epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
  ev.data.ptr = &listen_end;
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  struct epoll_event events[256];
  int64_t next_check = now_ms() + 250;
  for (;;) {
    int timeout = conns ? 250 : -1;
    int n = epoll_wait(ep, events, 256, timeout);
    if (n < 0 && errno != EINTR) return 1;
    for (int i = 0; i < n; i++) {
      End *e = events[i].data.ptr;
      uint32_t got = events[i].events;
      if (e == &control) {
        control_readable();
        continue;
      }
      if (e == &listen_end) {
        accept_all();
        continue;
      }
      Conn *c = e->c;
      /* an earlier event of this round may have ended it */
      if (c->dead || e->fd < 0) continue;
      int client = e == &c->cl, fd = e->fd;
      if ((got & EPOLLOUT) || (!client && c->req == REQ_CONNECTING && (got & (EPOLLERR | EPOLLHUP)))) {
        writable(c, e);
        /* a failed connection may have been handed over: the rest of the event was the old fd's */
        if (c->dead || e->fd != fd) continue;
      }
      if (got & EPOLLIN) {
        if (client) client_readable(c);
        else daemon_readable(c);
      } else if ((got & (EPOLLHUP | EPOLLERR)) && hung_up(fd)) {
        /* a side gone both ways while it is not read: the client's ends the connection; the
           daemon's is read once its bytes can go on (what it sent before its close) */
        if (client) conn_free(c);
        else if (e->events & EPOLLOUT) writable(c, e);
        else set_events(e, 0);
      }
    }
    while (graveyard) {
      Conn *g = graveyard;
      graveyard = g->next;
      free(g);
    }
    int64_t now = now_ms();
    if (conns && now >= next_check) {
      check_timers();
      next_check = now + 250;
    }
  }
}
