# xpm-runtime's init: what runs as PID 1 when xpm-runtime was started as PID 1 (a container
# without `--init`). Read by the shell of bin/xpm-runtime itself (`. init.sh` with the runtime's
# command line as "$@", on every Node version), or started as `/bin/sh init.sh <runtime command
# line>` by daemon/runtime/pid1.js (`node xpm-runtime` on Node >= 22.15).
#
# PID 1 inherits every orphan in the container and must reap it, or it stays a zombie. Node
# cannot wait for a process it did not spawn; a POSIX shell can: each of its waits collects any
# child that ends (waitpid(-1)), not only the job it waits for (dash, bash and busybox ash alike).
# So this shell starts the runtime as its only job, forwards the signals a container gets to it,
# reaps orphans while it waits, and exits with the runtime's status. Nothing else.

# A signal bin/xpm-runtime's shell caught before this file was read is kept.
sig=${sig-}
child=
forward () {
  sig=$1
  [ -n "$child" ] || return 0
  kill -s "$1" "$child" 2>/dev/null
  # A runtime forked but not yet exec'd loses the signal (its copy of this shell is resetting the
  # traps it inherited), and on a loaded machine that window lasts milliseconds: a stop signal is
  # sent again a second later (the runtime stops once, whatever it is sent meanwhile).
  case $1 in
    TERM|INT) (sleep 1 && kill -s "$1" "$child" 2>/dev/null) & ;;
  esac
}
# Set before the runtime starts, so no signal is lost; the runtime gets default dispositions
# back when it execs (and Node resets them anyway).
trap 'forward TERM' TERM
trap 'forward INT' INT
trap 'forward HUP' HUP
trap 'forward QUIT' QUIT
trap 'forward USR1' USR1
trap 'forward USR2' USR2

# Asked to stop before anything ran: nothing to stop, and a signal sent to the runtime now could
# reach its forked shell before the exec, whose traps are being reset, and be lost (CI saw the
# runtime run on). Exit as a process ended by that signal would.
case $sig in
  TERM) exit 143 ;;
  INT) exit 130 ;;
  HUP) exit 129 ;;
  QUIT) exit 131 ;;
esac
sig= # USR1, USR2 for a runtime not yet started: nobody to tell

"$@" &
child=$!
# A signal that came before $! was known: forward it now.
[ -n "$sig" ] && forward "$sig"

# `wait` returns early (status > 128) when a trapped signal arrives; then wait again. A wait for
# a job already reported answers 127: the status before it was the runtime's own.
last=
while :; do
  sig=
  wait "$child"
  rc=$?
  if [ -n "$last" ] && [ "$rc" -eq 127 ]; then
    rc=$last
    break
  fi
  if [ -z "$sig" ] || [ "$rc" -le 128 ]; then break; fi
  last=$rc
done
exit "$rc"
