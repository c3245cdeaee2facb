#!/bin/sh
# The `supervisor` command (the build writes it as dist/supervisor, the package's bin): runs the
# launcher, dist/supervisor.cjs, under the `node` of PATH.
#
# Node 20 reads and parses the bundle NODE_EXTRA_CA_CERTS names at every start, before any script
# (35-70 ms on a 2-core machine). The commands the launcher's quick client answers over the local
# socket (list, start, stop, logs, cd) make no TLS connection, so their node starts without it, and
# the launcher puts it back into its environment (SUPERVISOR_EXTRA_CA_CERTS) before it reads its
# environment or starts anything: the supervisor it starts, and its daemons, get it.
# A remote supervisor (--url, SUPERVISOR_URL) may need it: then nothing changes.
# `--version` needs no node at all: the build writes the version here; nor, mostly, do the
# commands dist/quick answers (below).
if [ "$#" -eq 1 ] && [ "$1" = --version ]; then
  echo "@VERSION@"
  exit 0
fi
# The launcher is next to this script; a global install reaches it through a symlink (or several).
self=$0
while [ -L "$self" ]; do
  link=$(readlink -- "$self") || break
  case "$link" in
  /*) self=$link ;;
  *) case "$self" in */*) self="${self%/*}/$link" ;; *) self=$link ;; esac ;;
  esac
done
case "$self" in
*/*) launcher="${self%/*}/supervisor.cjs" ;;
*) launcher=./supervisor.cjs ;;
esac
if [ -n "${NODE_EXTRA_CA_CERTS-}" ] && [ -z "${SUPERVISOR_URL-}" ]; then
  case "$1" in
  list | ls | start | s | stop | logs | l | cd)
    case " $* " in
    *" --url"*) ;;
    *)
      SUPERVISOR_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS
      export SUPERVISOR_EXTRA_CA_CERTS
      unset NODE_EXTRA_CA_CERTS
      ;;
    esac
    ;;
  esac
fi
# `list --json`, and `start` and `stop` of their simple forms, are answered by the running
# supervisor without node where the build made dist/quick (src/quick/native/quick.c), which runs
# `node "$launcher"` itself for anything it leaves to the CLI.
quick="${launcher%/*}/quick"
if [ -z "${SUPERVISOR_URL-}" ] && [ -x "$quick" ]; then
  case "$1" in
  list | ls | start | s | stop)
    case " $* " in
    *" --url"*) ;;
    *) exec "$quick" "$launcher" "$@" ;;
    esac
    ;;
  esac
fi
exec node "$launcher" "$@"
