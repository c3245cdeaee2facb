/* Buffers, epoll, writes to either side, the kept targets and the hand-off to the worker. */
#include "front.h"

/* ---- buffers ---- */

int buf_put(Buf *b, const void *p, size_t n) {
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
size_t buf_size(const Buf *b) { return b->len - b->off; }
void buf_take(Buf *b, size_t n) {
  b->off += n;
  if (b->off >= b->len) b->off = b->len = 0;
}
void buf_free(Buf *b) {
  free(b->p);
  b->p = NULL;
  b->off = b->len = b->cap = 0;
}

/* ---- epoll ---- */

void set_events(End *e, uint32_t events) {
  if (e->fd < 0 || e->events == events) return;
  struct epoll_event ev = {.events = events, .data.ptr = e};
  epoll_ctl(ep, e->events == 0 ? EPOLL_CTL_ADD : (events == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD), e->fd, &ev);
  e->events = events;
}

void close_end(End *e) {
  if (e->fd < 0) return;
  if (e->events) {
    epoll_ctl(ep, EPOLL_CTL_DEL, e->fd, NULL);
    e->events = 0;
  }
  close(e->fd);
  e->fd = -1;
}

/* What each side is polled for, from the state: a side is read only while the other takes its bytes. */
void sync_events(Conn *c) {
  if (c->dead) return;
  if (c->cl.fd >= 0 && c->hs) set_events(&c->cl, c->hs == HS_CERT ? 0 : c->hs_want);
  else if (c->cl.fd >= 0) {
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
void conn_free(Conn *c) {
  if (c->dead) return;
  c->dead = 1;
  tls_free(c);
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
  if (accept_paused && listener >= 0) {
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &listen_end};
    epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
    accept_paused = 0;
  }
}

/* Writes to one side at once what it takes; the rest waits in its buffer. -1: the side is gone. */
int send_to(Conn *c, End *e, Buf *pending, const struct iovec *iov, int n) {
  size_t total = 0;
  for (int i = 0; i < n; i++) total += iov[i].iov_len;
  if (total == 0) return 0;
  if (e->fd < 0) return -1;
  /* a write is activity, as Node's socket timeouts count it (a slow upload is not a silent daemon) */
  if (e == &c->cl) c->cl_active = now_ms();
  else c->up_active = now_ms();
  ssize_t w = 0;
  if (buf_size(pending) == 0 && e->fd >= 0 && !(e == &c->up && c->req == REQ_CONNECTING)) {
    do w = e == &c->cl ? cl_writev(c, iov, n) : writev(e->fd, iov, n);
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

int send1(Conn *c, End *e, Buf *pending, const void *p, size_t n) {
  struct iovec v = {(void *)p, n};
  return send_to(c, e, pending, &v, 1);
}

/* ---- hand-off to the worker, and pipes ---- */

/*
 * Gives the connection to the worker's relay over the hand-off socket, from the request in `in`
 * on (with the request sent last before it, `orig`, when `with_orig`).
 */
void hand_off(Conn *c, int code, long arg, int with_orig) {
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
void pipe_read(Conn *c, End *from) {
  int client = from == &c->cl;
  End *to = client ? &c->up : &c->cl;
  Buf *pending = client ? &c->to_up : &c->to_cl;
  ssize_t r;
  do r = client ? cl_read(c, rbuf, sizeof rbuf) : read(from->fd, rbuf, sizeof rbuf);
  while (r < 0 && errno == EINTR);
  if (r < 0) {
    if (errno != EAGAIN) conn_free(c);
    return;
  }
  if (r == 0) {
    if (client) c->cl_eof = 1;
    else c->up_eof = 1;
    /* the end goes on once what waits for the other side has gone */
    if (buf_size(pending) == 0) {
      if (client) shutdown(to->fd, SHUT_WR);
      else cl_shutdown(c);
    }
    else if (client) c->up_shut_pending = 1;
    else c->cl_shut_pending = 1;
    if (c->cl_eof && c->up_eof && buf_size(&c->to_cl) == 0 && buf_size(&c->to_up) == 0) return conn_free(c);
    return sync_events(c);
  }
  if (send1(c, to, pending, rbuf, (size_t)r) < 0) return conn_free(c);
  sync_events(c);
}

/* ---- the kept targets ---- */

Kept *kept_of(const char *host) {
  for (int i = 0; i < nkept; i++)
    if (strcasecmp(kept[i].host, host) == 0) return &kept[i];
  return NULL;
}

void forget_all(void) {
  for (int i = 0; i < nkept; i++) free(kept[i].host);
  nkept = 0;
}

void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }
