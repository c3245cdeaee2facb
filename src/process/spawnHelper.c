/*
 * The spawn helper in C: the same program as the Perl script of spawnHelperScript.ts (its
 * arguments, requests and replies are described there), built into dist/spawn-helper by
 * scripts/build.mjs where a C compiler is at hand. Linux only. Against the Perl one: ~1 MiB of
 * resident memory instead of ~5.5, and a fork that copies almost nothing (docs/benchmarks.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* One child asked for, from its fork until its answer and its exit have both gone out. */
typedef struct {
  pid_t pid;    /* 0: the fork failed (answer set at once) */
  char *id;     /* the request's id */
  int pipe;     /* read end of its exec-result pipe; -1 once read */
  char *answer; /* its P or E line once known */
  int sent;     /* the answer went out */
  int exited;   /* reaped before its answer went out: status below */
  int status;
} Child;

static Child *children;
static size_t count, capacity;
static long use_setsid, out_flags;
/* Ignored by the helper (Ctrl-C or a hang-up is the supervisor's), reset in each child. */
static const int ignored[] = {SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE};

static void out(const char *s) {
  size_t len = strlen(s), off = 0;
  while (off < len) {
    ssize_t n = write(1, s + off, len - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      exit(0); /* the supervisor is gone */
    }
    off += (size_t)n;
  }
}

static char *format(const char *fmt, const char *a, long b, long c) {
  char line[512];
  snprintf(line, sizeof line, fmt, a, b, c);
  return strdup(line);
}

static void drop(size_t i) {
  free(children[i].id);
  free(children[i].answer);
  memmove(children + i, children + i + 1, (count - i - 1) * sizeof(Child));
  count--;
}

static Child *find(pid_t pid) {
  for (size_t i = 0; i < count; i++)
    if (children[i].pid == pid) return &children[i];
  return NULL;
}

/* The exec result of a child whose pipe is readable or closed: nothing read means it exec'd. */
static void read_result(Child *c) {
  char buf[64];
  ssize_t n;
  do n = read(c->pipe, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  close(c->pipe);
  c->pipe = -1;
  if (n > 0) {
    buf[n] = 0;
    char *space = strchr(buf, ' ');
    if (space != NULL) *space = 0;
    char line[512];
    snprintf(line, sizeof line, "E\t%s\t%s\t%s\n", c->id, buf, space != NULL ? space + 1 : "0");
    c->answer = strdup(line);
  } else c->answer = format("P\t%s\t%ld\n", c->id, c->pid, 0);
}

/* Answers in the order the children were asked for; an exit goes out after its child's answer. */
static void flush(void) {
  size_t i = 0;
  while (i < count && children[i].sent) i++;
  while (i < count && children[i].answer != NULL) {
    Child *c = &children[i];
    out(c->answer);
    c->sent = 1;
    if (c->pid == 0) {
      drop(i);
    } else if (c->answer[0] == 'E') {
      if (!c->exited) waitpid(c->pid, NULL, 0); /* it ends right after saying why */
      drop(i);
    } else if (c->exited) {
      char line[64];
      snprintf(line, sizeof line, "X\t%ld\t%d\n", (long)c->pid, c->status);
      out(line);
      drop(i);
    } else i++;
    while (i < count && children[i].sent) i++;
  }
}

static void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    Child *c = find(pid);
    if (c == NULL) continue; /* an orphan re-parented to this subreaper: nobody to tell */
    if (c->pipe >= 0) read_result(c);
    if (!c->sent) {
      c->exited = 1;
      c->status = status;
    } else {
      char line[64];
      snprintf(line, sizeof line, "X\t%ld\t%d\n", (long)pid, status);
      out(line);
      drop((size_t)(c - children));
    }
  }
}

/* In the child: says which step failed through the exec-result pipe, and ends. */
static void fail(int pipe, const char *step) {
  char buf[64];
  int len = snprintf(buf, sizeof buf, "%s %d", step, errno);
  if (write(pipe, buf, (size_t)len) < 0) _exit(127);
  _exit(127);
}

static void start(char *id, char *cwd, char *outfile, char *file, char **argv, char **envp) {
  if (count == capacity) {
    capacity = capacity == 0 ? 64 : capacity * 2;
    children = realloc(children, capacity * sizeof(Child));
    if (children == NULL) exit(1);
  }
  Child *c = &children[count++];
  *c = (Child){.pid = 0, .id = strdup(id), .pipe = -1};
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) {
    c->answer = format("E\t%s\tfork\t%ld\n", id, errno, 0);
    return;
  }
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(p[0]);
    close(p[1]);
    c->answer = format("E\t%s\tfork\t%ld\n", id, e, 0);
    return;
  }
  if (pid == 0) {
    /* first let go of the helper's pipes: a child that blocks below (opening a FIFO) must not
       keep the supervisor from seeing the helper's end */
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0) fail(p[1], "open");
    if (null > 1) close(null);
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) signal(ignored[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if ((use_setsid ? setsid() : setpgid(0, 0)) < 0) fail(p[1], "setsid");
    int o = open(outfile, (int)out_flags, 0600);
    if (o < 0 || dup2(o, 1) < 0 || dup2(o, 2) < 0) fail(p[1], "open");
    if (o > 2) close(o);
    if (chdir(cwd) < 0) fail(p[1], "chdir");
    environ = envp; /* exactly the given environment; its PATH is the one searched */
    execvp(file, argv);
    fail(p[1], "exec");
  }
  close(p[1]);
  char line[512];
  snprintf(line, sizeof line, "F\t%s\t%ld\n", id, (long)pid);
  out(line); /* forked: if this helper dies before it answers, the supervisor ends this child */
  c->pid = pid;
  c->pipe = p[0];
}

static int is_number(const char *s) {
  if (*s == 0) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* Takes whole requests off the complete fields `f[0..n)`; returns how many fields it used. */
static size_t requests(char **f, size_t n) {
  size_t at = 0;
  for (;;) {
    /* skip what is no request */
    while (at < n && (strcmp(f[at], "S") != 0 || (n - at > 5 && !is_number(f[at + 5])))) at++;
    if (n - at < 6) return at;
    size_t argc = strtoul(f[at + 5], NULL, 10);
    if (n - at < 7 + argc) return at;
    if (!is_number(f[at + 6 + argc])) {
      at++;
      continue;
    }
    size_t envc = strtoul(f[at + 6 + argc], NULL, 10);
    if (n - at < 7 + argc + envc) return at;
    char **argv = malloc((argc + 1) * sizeof(char *));
    char **envp = malloc((envc + 1) * sizeof(char *));
    if (argv == NULL || envp == NULL) exit(1);
    for (size_t i = 0; i < argc; i++) argv[i] = f[at + 6 + i];
    argv[argc] = NULL;
    for (size_t i = 0; i < envc; i++) envp[i] = f[at + 7 + argc + i];
    envp[envc] = NULL;
    start(f[at + 1], f[at + 2], f[at + 3], f[at + 4], argv, envp);
    free(argv);
    free(envp);
    at += 7 + argc + envc;
  }
}

int main(int argc, char **argv) {
  /* an argument left out is 0, as in the Perl script */
  long arg[5] = {0};
  for (int i = 1; i < argc && i < 5; i++) arg[i] = atol(argv[i]);
  use_setsid = arg[1];
  out_flags = arg[2];
  /* PR_SET_CHILD_SUBREAPER: orphaned descendants of the daemons come to this process */
  if (arg[3] != 0 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    fprintf(stderr, "supervisor: the spawn helper cannot reap orphaned processes (prctl: %s)\n",
            strerror(errno));
  long sched = arg[4];
  if (sched != 0) {
    /* struct sched_attr, SCHED_FLAG_KEEP_POLICY: a 0.1 ms slice for the parent's main thread */
    struct {
      uint32_t size, policy;
      uint64_t flags;
      int32_t nice;
      uint32_t priority;
      uint64_t runtime, deadline, period;
    } attr = {48, 0, 8, 0, 0, 100000, 0, 0};
    pid_t parent = getppid();
    attr.nice = getpriority(PRIO_PROCESS, (id_t)parent);
    syscall(sched, parent, &attr, 0);
  }
  for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) signal(ignored[i], SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) return 1;
  fcntl(0, F_SETFD, FD_CLOEXEC);
  fcntl(1, F_SETFD, FD_CLOEXEC);

  char *buf = NULL;
  size_t len = 0, cap = 0;
  struct pollfd *fds = NULL;
  size_t nfds_cap = 0;
  for (;;) {
    if (nfds_cap < count + 2) {
      nfds_cap = (count + 2) * 2;
      fds = realloc(fds, nfds_cap * sizeof(struct pollfd));
      if (fds == NULL) exit(1);
    }
    size_t n = 0;
    fds[n++] = (struct pollfd){.fd = 0, .events = POLLIN};
    fds[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    for (size_t i = 0; i < count; i++)
      if (children[i].pipe >= 0) fds[n++] = (struct pollfd){.fd = children[i].pipe, .events = POLLIN};
    if (poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    for (size_t k = 2; k < n; k++) {
      if (fds[k].revents == 0) continue;
      for (size_t i = 0; i < count; i++)
        if (children[i].pipe == fds[k].fd) {
          read_result(&children[i]);
          break;
        }
    }
    if (fds[1].revents != 0) {
      struct signalfd_siginfo info;
      while (read(sfd, &info, sizeof info) > 0) {
      }
      reap();
    }
    if (fds[0].revents != 0) {
      if (cap - len < 65536) {
        cap = cap * 2 + 65536;
        buf = realloc(buf, cap);
        if (buf == NULL) exit(1);
      }
      ssize_t r = read(0, buf + len, cap - len);
      if (r < 0) {
        if (errno == EINTR) continue;
        return 0;
      }
      if (r == 0) return 0; /* the supervisor is gone: its children keep running */
      len += (size_t)r;
      /* every field up to the last NUL is whole (an empty one too) */
      size_t whole = 0;
      for (size_t i = 0; i < len; i++)
        if (buf[i] == 0) whole++;
      if (whole > 0) {
        char **f = malloc(whole * sizeof(char *));
        if (f == NULL) exit(1);
        size_t k = 0, from = 0;
        for (size_t i = 0; i < len; i++)
          if (buf[i] == 0) {
            f[k++] = buf + from;
            from = i + 1;
          }
        size_t used = requests(f, whole);
        size_t keep_from = used < whole ? (size_t)(f[used] - buf) : from;
        free(f);
        memmove(buf, buf + keep_from, len - keep_from);
        len -= keep_from;
      }
    }
    flush();
  }
}
