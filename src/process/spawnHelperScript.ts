/**
 * The spawn helper: a small process that forks and execs daemons for the supervisor (see
 * spawnHelper.ts for why). This is its Perl program, used where the C one (spawnHelper.c, the
 * same arguments, requests and replies) was not built: Perl because it is there (Debian and Ubuntu
 * count it among their essential packages) and small: ~0.5 MiB of private memory, where forking
 * from the supervisor's own ~70 MiB process costs ~1.5 ms per daemon on the supervisor's thread.
 *
 * Arguments: the `setsid` system call number (0: no `setsid`, use `setpgrp`), the open flags
 * `O_WRONLY | O_APPEND | O_CREAT` of this platform (both from Node, which knows them), then the
 * `prctl` system call number when it is to be a child subreaper (container mode), else 0: the
 * orphans of its daemons (a double fork) are then re-parented to it rather than to PID 1, and it
 * reaps them like its own children, saying nothing of them. Last the `sched_setattr` system call
 * number, or 0: it then asks for a 0.1 ms time slice for its parent's main thread, with the same
 * policy and nice value (docs/attach.md "On a busy machine"; Linux 6.12 and later honour it, older
 * kernels ignore the field, and a failure changes nothing).
 *
 * Requests on stdin, every field ended by a NUL byte (which no path, argument or environment
 * string can hold, so nothing needs escaping):
 *   S <id> <cwd> <output file> <file to exec> <argc> <argv...> <envc> <KEY=VALUE...>
 * Replies on stdout, one per line:
 *   P <id> <pid>               started: the exec succeeded
 *   E <id> <step> <errno>      not started: fork, open (the output file), chdir or exec failed
 *   X <pid> <wait status>      a child exited (the raw status: code << 8, or the signal number)
 * At the end of stdin (the supervisor is gone) it exits and leaves its children running.
 *
 * The child: new session (or process group), stdin /dev/null, stdout and stderr appended to the
 * output file, the working directory, exactly the given environment, default signal handlers;
 * whether the exec worked comes back through a close-on-exec pipe, as libuv does it. The helper
 * does not wait for that: it forks the next daemon while the last one execs. The answers go out
 * in the order the daemons were asked for (each one's exit after its answer), as a supervisor
 * that forks them one after the other would see them.
 */
export const SPAWN_HELPER_SCRIPT = String.raw`
use strict;
no warnings;
my ($sys_setsid, $out_flags, $sys_prctl, $sys_sched_setattr) = @ARGV;
my $EINTR = 4;
# PR_SET_CHILD_SUBREAPER (36): orphaned descendants of the daemons come to this process
if ($sys_prctl) { syscall($sys_prctl + 0, 36, 1, 0, 0, 0) == 0 or print STDERR "supervisor: the spawn helper cannot reap orphaned processes (prctl: $!)\n" }
# struct sched_attr: size, policy, flags (SCHED_FLAG_KEEP_POLICY), nice, priority, runtime (ns), deadline, period
if ($sys_sched_setattr) { my $p = getppid(); syscall($sys_sched_setattr + 0, $p, pack('L L Q l L Q Q Q', 48, 0, 8, getpriority(0, $p), 0, 100000, 0, 0), 0) }
# perl marks descriptors above $^F (2) close-on-exec: none of these reaches a daemon
pipe(my $wake_r, my $wake_w) or die "pipe: $!";
my %pipe;   # pid => [request id, read end of its exec-result pipe]: result not read yet
my %result; # key => its answer, once known (the key is the pid, or "f<id>" for a failed fork)
my %exit;   # pid => wait status of a child that ended before its answer went out
my %kids;   # pids this helper forked that have not exited yet (the rest it reaps are orphans)
my @order;  # keys in the order they were asked for, until their answers go out
sub out { my $s = shift; my $off = 0; while ($off < length $s) { my $n = syswrite(STDOUT, $s, length($s) - $off, $off); if (!defined $n) { next if $! + 0 == $EINTR; exit 0 } $off += $n } }
# Reads the exec result of a child whose pipe is readable (or closed: it has exited).
sub read_result {
  my ($pid) = @_;
  my $e = delete $pipe{$pid} or return;
  my ($id, $fh) = @$e;
  my ($got, $err);
  while (1) { $got = sysread($fh, $err, 64); if (!defined $got && $! + 0 == $EINTR) { next } last }
  close $fh;
  if ($got) { my ($step, $errno) = split / /, $err; $result{$pid} = "E\t$id\t$step\t$errno\n" }
  else { $result{$pid} = "P\t$id\t$pid\n" }
}
# Answers in the order the daemons were asked for (each exit after its daemon's answer).
sub flush {
  while (@order && exists $result{$order[0]}) {
    my $key = shift @order;
    my $line = delete $result{$key};
    out($line);
    next if $key =~ /^f/; # no child was forked
    if (substr($line, 0, 1) eq 'E') { waitpid($key, 0) unless exists $exit{$key}; delete $exit{$key}; delete $kids{$key} }
    elsif (exists $exit{$key}) { delete $kids{$key}; out("X\t$key\t" . delete($exit{$key}) . "\n") }
  }
}
sub reap {
  while ((my $pid = waitpid(-1, 1)) > 0) {
    my $status = $?;
    if (exists $pipe{$pid} || exists $result{$pid}) { read_result($pid); $exit{$pid} = $status }
    elsif (delete $kids{$pid}) { out("X\t$pid\t$status\n") }
    # else an orphan re-parented to this subreaper: reaped, and nobody to tell
  }
}
$SIG{CHLD} = sub { syswrite($wake_w, "x") };
$SIG{PIPE} = 'IGNORE';
# Ignored here, and reset in each daemon: Ctrl-C or a hang-up at the supervisor's terminal is for
# the supervisor, which stops the daemons in order, not for the helper.
$SIG{$_} = 'IGNORE' for qw(INT QUIT HUP TSTP TTIN TTOU);
sub start {
  my ($id, $cwd, $outfile, $file, $argv, $env) = @_;
  my @argv = @$argv;
  my @env = @$env;
  my $failed = sub { my $key = "f$id"; $result{$key} = "E\t$id\tfork\t$_[0]\n"; push @order, $key };
  pipe(my $err_r, my $err_w) or return $failed->($! + 0);
  my $pid = fork();
  if (!defined $pid) { my $e = $! + 0; close $err_r; close $err_w; return $failed->($e) }
  if ($pid == 0) {
    my $fail = sub { syswrite($err_w, "$_[0] " . ($! + 0)); CORE::exit(127) };
    # first let go of the helper's pipes: a child that blocks below (opening a FIFO) must not
    # keep the supervisor from seeing the helper's end
    open(STDIN, '<', '/dev/null') or $fail->('open');
    open(STDOUT, '>', '/dev/null') or $fail->('open');
    $SIG{$_} = 'DEFAULT' for qw(CHLD PIPE INT QUIT HUP TSTP TTIN TTOU);
    if ($sys_setsid) { syscall($sys_setsid + 0) >= 0 or $fail->('setsid') } else { setpgrp(0, 0) or $fail->('setsid') }
    sysopen(my $o, $outfile, $out_flags + 0, 0600) or $fail->('open');
    open(STDOUT, '>&', $o) or $fail->('open');
    open(STDERR, '>&', $o) or $fail->('open');
    close $o;
    chdir($cwd) or $fail->('chdir');
    %ENV = ();
    for my $kv (@env) { my $i = index($kv, '='); $ENV{substr($kv, 0, $i)} = substr($kv, $i + 1) }
    exec { $file } @argv;
    $fail->('exec');
  }
  close $err_w;
  # forked: if this helper dies before it answers, the supervisor ends this child
  out("F\t$id\t$pid\n");
  $kids{$pid} = 1;
  $pipe{$pid} = [$id, $err_r];
  push @order, $pid;
}
my $buf = '';
my @q; # complete fields not yet taken
# Takes one whole request off @q (undef while it is not all there); skips what is no request.
sub request {
  while (@q && ($q[0] ne 'S' || (@q > 5 && $q[5] !~ /^\d+$/))) { shift @q }
  return undef if @q < 6;
  my $argc = $q[5];
  return undef if @q < 7 + $argc;
  my $envc = $q[6 + $argc];
  if ($envc !~ /^\d+$/) { shift @q; return request() }
  return undef if @q < 7 + $argc + $envc;
  my @f = splice(@q, 0, 7 + $argc + $envc);
  return [$f[1], $f[2], $f[3], $f[4], [@f[6 .. 5 + $argc]], [@f[7 + $argc .. 6 + $argc + $envc]]];
}
while (1) {
  my $rin = '';
  vec($rin, fileno(STDIN), 1) = 1;
  vec($rin, fileno($wake_r), 1) = 1;
  vec($rin, fileno($_->[1]), 1) = 1 for values %pipe;
  my $n = select(my $rout = $rin, undef, undef, undef);
  if ($n < 0) { next if $! + 0 == $EINTR; exit 1 }
  for my $pid (keys %pipe) { read_result($pid) if vec($rout, fileno($pipe{$pid}[1]), 1) }
  if (vec($rout, fileno($wake_r), 1)) { sysread($wake_r, my $junk, 4096); reap() }
  if (vec($rout, fileno(STDIN), 1)) {
    my $r = sysread(STDIN, $buf, 65536, length $buf);
    if (!defined $r) { next if $! + 0 == $EINTR; exit 0 }
    exit 0 if $r == 0;
    my $end = rindex($buf, "\0");
    if ($end >= 0) {
      # up to and with the last NUL: every field there is whole (an empty one too)
      my @fields = split(/\0/, substr($buf, 0, $end + 1), -1);
      pop @fields;
      push @q, @fields;
      substr($buf, 0, $end + 1) = '';
      while (my $req = request()) { start(@$req) }
    }
  }
  flush();
}
`
