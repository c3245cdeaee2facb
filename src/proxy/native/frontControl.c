/* The control lines from and to the worker (front.ts). */
#include "front.h"

/* The control lines read so far, up to the last whole one. */
static char ctl_line[16384];
static size_t ctl_len;

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
  } else if (strcmp(word, "key") == 0 || strcmp(word, "fallback") == 0) {
    char *pem = strtok_r(NULL, " ", &save);
    if (pem && tls_identity(word, pem) && listener < 0 && !stopping && listen_on(listen_host, listen_port) < 0)
      exit(1);
  } else if (strcmp(word, "cert") == 0) {
    char *id = strtok_r(NULL, " ", &save), *pem = strtok_r(NULL, " ", &save);
    if (id && pem) tls_cert((unsigned)strtoul(id, NULL, 10), pem);
  } else if (strcmp(word, "forget") == 0) {
    forget_all();
  } else if (strcmp(word, "stop") == 0) {
    stop_accepting();
  } else if (strcmp(word, "close") == 0) {
    exit(0);
  }
}

void control_readable(void) {
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
