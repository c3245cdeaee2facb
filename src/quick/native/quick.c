/*
 * dist/quick: `supervisor list --json`, and `start` or `stop` of the simple forms, answered by the
 * running supervisor without starting Node (docs/cli.md, "Fast paths"). dist/supervisor
 * (scripts/entry.sh) runs it as `quick LAUNCHER ARGS..`. It sends the arguments, the directory
 * and the environment to POST /api/cli/quick on the supervisor's socket; the supervisor answers
 * the whole command (src/api/quickAnswer.ts): what to print on stdout and stderr, and the exit
 * status. Anything else (no supervisor, another version, a command or a form it leaves to the CLI,
 * an environment that is not UTF-8) runs `node LAUNCHER ARGS..` instead, before anything was done.
 * `start` and `stop` come here only when nothing would be coloured: neither stdout nor stderr a
 * terminal, or NO_COLOR set.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SUPERVISOR_VERSION
#error "SUPERVISOR_VERSION: the build passes the package's version"
#endif

extern char **environ;

typedef struct {
  char *p;
  size_t len, cap;
} buf;

static void put(buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (b->len + n + 1 > cap) cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL) {
      perror("supervisor");
      exit(1);
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* The CLI in Node, as if this program had not run: exec'd, so nothing is left of it. */
static void run_cli(char **argv) {
  argv[0] = "node";
  execvp("node", argv);
  fprintf(stderr, "supervisor: cannot run node: %s\n", strerror(errno));
  exit(127);
}

/* The length of the UTF-8 sequence at s, or 0 when it is not one (JSON carries UTF-8 only). */
static size_t utf8_len(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
  if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
  return n;
}

/* s as a JSON string; 0 when it is not UTF-8. */
static int json_string(buf *b, const char *s, size_t n) {
  puts_(b, "\"");
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      put(b, e, 2);
      i++;
    } else if (c < 0x20) {
      char e[8];
      snprintf(e, sizeof e, "\\u%04x", c);
      puts_(b, e);
      i++;
    } else {
      size_t len = utf8_len((const unsigned char *)s + i);
      if (len == 0 || i + len > n) return 0;
      put(b, s + i, len);
      i += len;
    }
  }
  puts_(b, "\"");
  return 1;
}

/*
 * The environment the CLI would send: dist/supervisor moves NODE_EXTRA_CA_CERTS aside for the
 * node it starts (SUPERVISOR_EXTRA_CA_CERTS), and the launcher puts it back first thing.
 */
static int json_env(buf *b) {
  const char *extra = getenv("SUPERVISOR_EXTRA_CA_CERTS");
  const char *node_extra = getenv("NODE_EXTRA_CA_CERTS");
  int first = 1;
  puts_(b, "{");
  for (char **e = environ; *e != NULL; e++) {
    const char *eq = strchr(*e, '=');
    if (eq == NULL) continue;
    size_t klen = (size_t)(eq - *e);
    const char *value = eq + 1;
    if (klen == 25 && strncmp(*e, "SUPERVISOR_EXTRA_CA_CERTS", klen) == 0) continue;
    if (klen == 19 && strncmp(*e, "NODE_EXTRA_CA_CERTS", klen) == 0 && extra != NULL) continue;
    if (!first) puts_(b, ",");
    first = 0;
    if (!json_string(b, *e, klen)) return 0;
    puts_(b, ":");
    if (!json_string(b, value, strlen(value))) return 0;
  }
  const char *ca = extra != NULL ? (*extra != '\0' ? extra : (node_extra != NULL && *node_extra != '\0' ? node_extra : NULL)) : NULL;
  if (ca != NULL) {
    if (!first) puts_(b, ",");
    puts_(b, "\"NODE_EXTRA_CA_CERTS\":");
    if (!json_string(b, ca, strlen(ca))) return 0;
  }
  puts_(b, "}");
  return 1;
}

/* $SUPERVISOR_STATE_DIR, else $XDG_STATE_HOME/supervisor, else ~/.local/state/supervisor (src/state/paths.ts). */
static int socket_path(char *out, size_t size) {
  const char *dir = getenv("SUPERVISOR_STATE_DIR");
  const char *xdg = getenv("XDG_STATE_HOME");
  const char *home = getenv("HOME");
  int n;
  if (dir != NULL && *dir != '\0') n = snprintf(out, size, "%s/sock/api.sock", dir);
  else if (xdg != NULL && *xdg != '\0') n = snprintf(out, size, "%s/supervisor/sock/api.sock", xdg);
  else if (home != NULL && *home != '\0') n = snprintf(out, size, "%s/.local/state/supervisor/sock/api.sock", home);
  else return 0;
  /* a relative directory is resolved from here by the CLI: leave it to it */
  return n > 0 && (size_t)n < size && out[0] == '/';
}

static int send_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return 0;
    p += w;
    n -= (size_t)w;
  }
  return 1;
}

/* The body of a chunked answer, in place; 0 when it is not one. */
static int unchunk(buf *body) {
  size_t in = 0, out = 0;
  for (;;) {
    char *end;
    unsigned long size = strtoul(body->p + in, &end, 16);
    char *crlf = strstr(end, "\r\n");
    if (end == body->p + in || crlf == NULL) return 0;
    in = (size_t)(crlf - body->p) + 2;
    if (size == 0) break;
    if (in + size + 2 > body->len) return 0;
    memmove(body->p + out, body->p + in, size);
    out += size;
    in += size + 2;
  }
  body->len = out;
  body->p[out] = '\0';
  return 1;
}

/* The four hex digits at s (it stops at the first that is not one, the string's end included). */
static int hex4(const char *s, unsigned long *out) {
  *out = 0;
  for (int i = 0; i < 4; i++) {
    char h = s[i];
    int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
    if (d < 0) return 0;
    *out = *out * 16 + (unsigned long)d;
  }
  return 1;
}

/* A JSON string at *p (after its opening quote) into out, decoded; 0 when malformed. */
static int parse_string(const char **p, buf *out) {
  const char *s = *p;
  while (*s != '"') {
    if (*s == '\0') return 0;
    if (*s != '\\') {
      put(out, s++, 1);
      continue;
    }
    s++;
    char c = *s++;
    const char *simple = strchr("\"\\/bfnrt", c);
    if (c != '\0' && simple != NULL) {
      put(out, &"\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"], 1);
      continue;
    }
    unsigned long u, lo;
    if (c != 'u' || !hex4(s, &u)) return 0;
    s += 4;
    /* a surrogate pair is one code point; a lone surrogate is U+FFFD, as Node writes it */
    if (u >= 0xd800 && u < 0xdc00 && s[0] == '\\' && s[1] == 'u' && hex4(s + 2, &lo) && lo >= 0xdc00 &&
        lo < 0xe000) {
      u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
      s += 6;
    }
    if (u >= 0xd800 && u < 0xe000) u = 0xfffd;
    char e[4];
    size_t n;
    if (u < 0x80) e[0] = (char)u, n = 1;
    else if (u < 0x800) e[0] = (char)(0xc0 | u >> 6), e[1] = (char)(0x80 | (u & 0x3f)), n = 2;
    else if (u < 0x10000)
      e[0] = (char)(0xe0 | u >> 12), e[1] = (char)(0x80 | ((u >> 6) & 0x3f)), e[2] = (char)(0x80 | (u & 0x3f)), n = 3;
    else
      e[0] = (char)(0xf0 | u >> 18), e[1] = (char)(0x80 | ((u >> 12) & 0x3f)), e[2] = (char)(0x80 | ((u >> 6) & 0x3f)),
      e[3] = (char)(0x80 | (u & 0x3f)), n = 4;
    put(out, e, n);
  }
  *p = s + 1;
  return 1;
}

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
  return p;
}

/* `"key":` at *p; 0 when something else is there. */
static int expect_key(const char **p, const char *key) {
  const char *s = skip_ws(*p);
  size_t n = strlen(key);
  if (*s != '"' || strncmp(s + 1, key, n) != 0 || s[n + 1] != '"') return 0;
  s = skip_ws(s + n + 2);
  if (*s != ':') return 0;
  *p = skip_ws(s + 1);
  return 1;
}

/* {"exit":N,"stdout":"..","stderr":".."}, the keys in the order QuickAnswer gives them. */
static int parse_answer(const char *p, int *exit_code, buf *out, buf *err) {
  p = skip_ws(p);
  if (*p++ != '{' || !expect_key(&p, "exit")) return 0;
  char *end;
  long code = strtol(p, &end, 10);
  if (end == p || code < 0 || code > 255) return 0;
  p = skip_ws(end);
  if (*p++ != ',' || !expect_key(&p, "stdout") || *p++ != '"' || !parse_string(&p, out)) return 0;
  p = skip_ws(p);
  if (*p++ != ',' || !expect_key(&p, "stderr") || *p++ != '"' || !parse_string(&p, err)) return 0;
  p = skip_ws(p);
  if (*p != '}') return 0;
  *exit_code = (int)code;
  return 1;
}

static int colours_off(void) {
  const char *no_color = getenv("NO_COLOR");
  return (no_color != NULL && *no_color != '\0') || (!isatty(1) && !isatty(2));
}

/* Whether this program asks the supervisor: the commands and forms it answers (the rest it refuses). */
static int handled(int argc, char **argv) {
  const char *cmd = argv[2];
  if (strcmp(cmd, "list") == 0 || strcmp(cmd, "ls") == 0) return argc == 4 && strcmp(argv[3], "--json") == 0;
  if (strcmp(cmd, "stop") == 0 || strcmp(cmd, "start") == 0 || strcmp(cmd, "s") == 0) return colours_off();
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: quick LAUNCHER COMMAND [ARGS..] (dist/supervisor runs it)\n");
    return 2;
  }
  if (!handled(argc, argv)) run_cli(argv);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  char cwd[4096];
  if (!socket_path(addr.sun_path, sizeof addr.sun_path) || getcwd(cwd, sizeof cwd) == NULL) run_cli(argv);

  buf body = {0};
  puts_(&body, "{\"argv\":[");
  for (int i = 2; i < argc; i++) {
    if (i > 2) puts_(&body, ",");
    if (!json_string(&body, argv[i], strlen(argv[i]))) run_cli(argv);
  }
  puts_(&body, "],\"cwd\":");
  if (!json_string(&body, cwd, strlen(cwd))) run_cli(argv);
  puts_(&body, ",\"env\":");
  if (!json_env(&body)) run_cli(argv);
  puts_(&body, "}");

  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) run_cli(argv);
  char head[256];
  int n = snprintf(head, sizeof head,
                   "POST /api/cli/quick HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                   "x-supervisor-version: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                   SUPERVISOR_VERSION, body.len);
  if (n <= 0 || (size_t)n >= sizeof head || !send_all(fd, head, (size_t)n) || !send_all(fd, body.p, body.len))
    run_cli(argv);

  /* the whole answer: the supervisor closes the connection after it */
  buf reply = {0};
  char chunk[65536];
  for (;;) {
    ssize_t r = read(fd, chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) run_cli(argv);
    if (r == 0) break;
    put(&reply, chunk, (size_t)r);
  }
  close(fd);
  /* no answer, or another one than 200 (409: the CLI's to answer): nothing was done */
  char *end_of_head = reply.p == NULL ? NULL : strstr(reply.p, "\r\n\r\n");
  if (end_of_head == NULL || strncmp(reply.p, "HTTP/1.1 200 ", 13) != 0) run_cli(argv);
  *end_of_head = '\0';
  buf answer = {0};
  put(&answer, end_of_head + 4, reply.len - (size_t)(end_of_head + 4 - reply.p));
  for (char *h = strstr(reply.p, "\r\n"); h != NULL; h = strstr(h + 2, "\r\n"))
    if (strncasecmp(h + 2, "transfer-encoding:", 18) == 0 && strstr(h + 20, "chunked") != NULL) {
      if (!unchunk(&answer)) answer.len = 0;
      break;
    }

  int code = 1;
  buf out = {0}, err = {0};
  if (answer.len == 0 || !parse_answer(answer.p, &code, &out, &err)) {
    fprintf(stderr, "error: the supervisor's answer could not be read; see `supervisor list`\n");
    return 1;
  }
  /* a reader that went away (`| head`) ends the pipeline, as for the CLI (scripts/launcher.cjs) */
  signal(SIGPIPE, SIG_IGN);
  if ((out.len > 0 && !send_all(1, out.p, out.len)) || (err.len > 0 && !send_all(2, err.p, err.len)))
    return errno == EPIPE ? 0 : 1;
  return code;
}
