/* Requests: heads read and rewritten as the worker's relay does (src/proxy/http1/head.ts), routed, sent. */
#include "front.h"

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
int listed(const char *list, size_t list_len, const char *name, size_t name_len) {
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

int among(const char *name, size_t len, const char **set) {
  for (int i = 0; set[i]; i++)
    if (strlen(set[i]) == len && strncasecmp(set[i], name, len) == 0) return 1;
  return 0;
}

/* Request headers kept whatever Connection names: the body's framing, and the host. */
static const char *NEVER_NAMED[] = {"content-length", "transfer-encoding", "host", NULL};

static const char *IDEMPOTENT[] = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", NULL};

void str_add(Str *s, const char *p, size_t n) {
  if (s->len + n + 1 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 1024;
    while (cap < s->len + n + 1) cap *= 2;
    s->p = realloc(s->p, cap);
    s->cap = cap;
  }
  memcpy(s->p + s->len, p, n);
  s->len += n;
}
void str_cat(Str *s, const char *p) { str_add(s, p, strlen(p)); }

/* The next line of a head (`len` bytes, without its empty line) from `*off`: 0 when none is left. */
int next_line(const char *h, size_t len, size_t *off, const char **line, size_t *n) {
  if (*off > len) return 0;
  const char *ln = h + *off;
  const char *e = memmem(ln, len - *off, "\r\n", 2);
  *n = e ? (size_t)(e - ln) : len - *off;
  *line = ln;
  *off += *n + 2;
  return 1;
}

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
  const char *ln;
  size_t len;
  for (size_t off = l0 + 2; l0 < end && next_line(h, end, &off, &ln, &len);) {
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
  }
  /* a host longer than any name (the control line's bound) goes to the worker too */
  if (!host || host_len == 0 || host_len > 1024 || chunked || hops >= MAX_HOPS) goto other;
  ff = ffs.p;
  ff_len = ffs.len;
  conn_list = conns_s.p;
  conn_len = conns_s.len;
  /* the head sent on: the request line and the end-to-end lines as received, then the proxy's */
  Str out = {0};
  str_add(&out, h, l0);
  for (size_t off = l0 + 2; l0 < end && next_line(h, end, &off, &ln, &len);) {
    Field f;
    field_of(ln, len, &f);
    if (!among(f.name, f.name_len, HOP_REQUEST) &&
        !(conn_len && listed(conn_list, conn_len, f.name, f.name_len) && !among(f.name, f.name_len, NEVER_NAMED))) {
      str_cat(&out, "\r\n");
      str_add(&out, ln, len);
    }
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
  snprintf(tail, sizeof tail, "\r\nx-forwarded-proto: %s\r\nx-supervisor-hops: %d\r\n\r\n", c->ssl ? "https" : "http", hops + 1);
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
void send_request(Conn *c) {
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

void route_answered(Conn *c, Kept *k, const Target *t) {
  c->req = REQ_HEAD;
  if (k) {
    const Target *next = &k->t[k->turn % k->n];
    k->turn = (k->turn + 1) % k->n;
    return go_to(c, next);
  }
  go_to(c, t);
}

/* Relays what the client sent while the relay can: heads are read and routed, bodies passed on. */
void process_client(Conn *c) {
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
