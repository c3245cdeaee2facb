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
#include "front.h"

int ep, listener = -1, stopping, bound_port, accept_paused;
const char *listen_host, *listen_port;
const char *handoff_path;
int64_t idle_ms, response_ms;
Conn *conns, *graveyard;
long nconns;
unsigned next_route = 1;
Kept kept[MAX_KEPT];
int nkept;
char rbuf[READ_CHUNK];
End control = {0, NULL, 0};
End listen_end = {-1, NULL, 0};

/* the kernel's last tick (1-4 ms old), read without the TSC: the timeouts are of seconds */
int64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void say(const char *fmt, ...) {
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

/* ---- events ---- */

void client_readable(Conn *c) {
  if (c->hs) return tls_handshake(c);
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
  do r = cl_read(c, c->in.p + c->in.len, c->in.cap - c->in.len);
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
  if (client && c->hs) return tls_handshake(c);
  if (!client && c->req == REQ_CONNECTING) {
    /* an event of an earlier socket of this number: the connection is still under way */
    struct pollfd p = {.fd = e->fd, .events = POLLOUT};
    if (poll(&p, 1, 0) != 1) return;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(e->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err) return hand_off(c, 1, 0, 0);
    send_request(c);
    return;
  }
  Buf *b = client ? &c->to_cl : &c->to_up;
  while (buf_size(b) > 0) {
    struct iovec v = {b->p + b->off, buf_size(b)};
    ssize_t w = client ? cl_writev(c, &v, 1) : writev(e->fd, &v, 1);
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
    if (client && c->cl_shut_pending) cl_shutdown(c), c->cl_shut_pending = 0;
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
    if (fd < 0 && (errno == ECONNABORTED || errno == EINTR)) continue;
    if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
      /* no descriptor left: the listener waits for a connection to end (else it would spin) */
      epoll_ctl(ep, EPOLL_CTL_DEL, listener, NULL);
      accept_paused = 1;
    }
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
    if (tls_on()) c->hs = HS_GOING, c->hs_want = EPOLLIN;
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

int listen_on(const char *host, const char *port) {
  union {
    struct sockaddr_storage s;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
  } sa;
  memset(&sa, 0, sizeof sa);
  socklen_t len;
  int p = atoi(port);
  if (inet_pton(AF_INET, host, &sa.v4.sin_addr) == 1) {
    sa.v4.sin_family = AF_INET;
    sa.v4.sin_port = htons(p);
    len = sizeof sa.v4;
  } else if (inet_pton(AF_INET6, host, &sa.v6.sin6_addr) == 1) {
    sa.v6.sin6_family = AF_INET6;
    sa.v6.sin6_port = htons(p);
    len = sizeof sa.v6;
  } else {
    say("failed EINVAL %s is not an IP address\n", host);
    return -1;
  }
  int fd = socket(sa.s.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, 511) < 0) {
    int err = errno;
    say("failed %s %s\n", err == EADDRINUSE ? "EADDRINUSE" : err == EACCES ? "EACCES" : "EOTHER", strerror(err));
    return -1;
  }
  len = sizeof sa;
  getsockname(fd, (struct sockaddr *)&sa, &len);
  listener = fd;
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &listen_end};
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  bound_port = ntohs(sa.s.ss_family == AF_INET ? sa.v4.sin_port : sa.v6.sin6_port);
  say("listening %d\n", bound_port);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 6 && !(argc == 7 && strcmp(argv[6], "tls") == 0)) {
    fprintf(stderr, "usage: proxy-front HOST PORT HANDOFF-SOCKET IDLE-MS RESPONSE-TIMEOUT-MS [tls]\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  handoff_path = argv[3];
  idle_ms = atoll(argv[4]);
  response_ms = atoll(argv[5]);
  ep = epoll_create1(EPOLL_CLOEXEC);
  listen_host = argv[1];
  listen_port = argv[2];
  if (argc == 7) {
    /* it listens once the worker has given the key and the default certificate */
    if (tls_start() < 0) {
      say("failed ENOTLS this build of the front has no TLS\n");
      return 1;
    }
  } else if (listen_on(listen_host, listen_port) < 0) return 1;
  set_nonblock(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &control};
  epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
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
    tls_pending();
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
