/* Responses: heads rewritten, bodies followed to where each ends (src/proxy/http1/relayResponses.ts). */
#include "front.h"

static const char *HOP_RESPONSE[] = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                                     "te", "upgrade", "http2-settings", NULL};

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

/* A response header line's name and value, trimmed as String.trim does; 0 without a colon. */
static int header_of(const char *ln, size_t n, const char **name, size_t *name_len, const char **value,
                     size_t *value_len) {
  const char *colon = memchr(ln, ':', n);
  if (!colon) return 0;
  *name = ln;
  *name_len = (size_t)(colon - ln);
  trim(name, name_len);
  *value = colon + 1;
  *value_len = n - (size_t)(colon - ln) - 1;
  return 1;
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
  const char *ln, *name, *value;
  size_t n, name_len, value_len;
  for (size_t off = l0 + 2; l0 < len && next_line(h, len, &off, &ln, &n);) {
    if (!header_of(ln, n, &name, &name_len, &value, &value_len)) continue;
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
  for (size_t off = l0 + 2; l0 < len && next_line(h, len, &off, &ln, &n);) {
    /* a line without a colon is dropped: the names Connection lists always include "" */
    if (!header_of(ln, n, &name, &name_len, &value, &value_len)) continue;
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

void end_client(Conn *c) {
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
void follow(Conn *c, const char *p, size_t n) {
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
  if (n > 0 && c->resp == RESP_NONE) {
    /* bytes no request asked for: the daemon's connection goes (and a body still coming with it) */
    close_end(&c->up);
    if (c->req == REQ_BODY) return end_client(c);
  }
  if (done && c->req == REQ_HEAD) {
    /* requests read already are answered first, even after the client's end */
    if (buf_size(&c->in) > 0) process_client(c);
    else if (c->cl_eof || stopping) return end_client(c);
  }
  sync_events(c);
}

/* The daemon closed its side, or its connection failed. */
void daemon_gone(Conn *c) {
  close_end(&c->up);
  buf_free(&c->to_up);
  int port = c->has_target ? c->target.port : 0;
  if (c->req == REQ_CONNECTING) return hand_off(c, 1, 0, 0);
  if (c->resp == RESP_CLOSE) return end_client(c);
  /* idle: the next request opens another; a body still coming after its answer has nowhere to go */
  if (c->resp == RESP_NONE) return c->req == REQ_BODY ? end_client(c) : (void)0;
  if (buf_size(&c->rhead) > 0 || c->resp != RESP_HEAD) {
    /* a response cut short */
    return conn_free(c);
  }
  /* nothing of the answer came */
  if (c->req == REQ_BODY) return hand_off(c, 502, port, 1);
  if (c->replayable) return hand_off(c, c->answered > 0 ? 0 : 1, 0, 1);
  hand_off(c, 502, port, 1);
}
