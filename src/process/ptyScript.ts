/**
 * The pseudo-terminal shim of `pty = true` (pty.ts): a few lines of Perl (perl-base, which every
 * Debian and Ubuntu system has) that the daemon's tracked process runs first, then `exec`s the
 * daemon itself, so the daemon keeps the pid, the session and the process group the supervisor
 * tracks, and its exit status reaches the supervisor as usual.
 *
 * Arguments: the ioctl numbers TIOCSPTLCK, TIOCGPTN, TIOCSCTTY and TIOCSWINSZ of this platform,
 * the terminal's rows and columns, the daemon's ID (the holder's name), its input pipe ("" for
 * none), then the file to exec and its argv (argv[0] first). Its stdout is the daemon's log file (O_APPEND), as for any daemon.
 *
 * 1. It opens a pseudo-terminal (/dev/ptmx), unlocks it, and opens its terminal side, which becomes
 *    the controlling terminal of the daemon's session.
 * 2. It forks the holder (twice, so that init reaps it, in a session of its own, so that a stop's
 *    signals to the daemon's group never reach it): the holder keeps the master side and copies
 *    what the daemon writes to the log file, until every terminal side is closed (EIO), then
 *    exits. It needs nothing of the supervisor, so a supervisor crash loses no output. It also
 *    reads the input pipe (docs/attach.md): keystrokes to type, and the window size.
 * 3. It turns output processing off (no CR added before each newline), sets the window size, puts
 *    the terminal on stdin, stdout and stderr, lets go of the master side, and execs the daemon.
 * A failure before the exec is written to the log file, and the daemon exits with status 127.
 */
export const PTY_SCRIPT = String.raw`
use strict;
no warnings;
use POSIX ();
my ($ptlck, $gptn, $sctty, $swinsz, $rows, $cols, $name, $input, $file, @argv) = @ARGV;
my ($EINTR, $EAGAIN) = (POSIX::EINTR(), POSIX::EAGAIN());
sub fail { syswrite(STDERR, "supervisor: cannot run $name under a pseudo-terminal: $_[0]: $!\n"); POSIX::_exit(127) }
sysopen(my $m, '/dev/ptmx', POSIX::O_RDWR() | POSIX::O_NOCTTY()) or fail('open /dev/ptmx');
my $unlock = pack('i', 0);
ioctl($m, $ptlck + 0, $unlock) or fail('unlock the pseudo-terminal');
my $n = pack('i', 0);
ioctl($m, $gptn + 0, $n) or fail('name the pseudo-terminal');
# the terminal side first: it is open (here) before the holder reads, so EIO means "all closed"
sysopen(my $s, '/dev/pts/' . unpack('i', $n), POSIX::O_RDWR()) or fail('open the terminal side');
ioctl($s, $sctty + 0, 0);
my $pid = fork();
defined $pid or fail('fork');
if ($pid == 0) {
  close $s;
  POSIX::setsid();
  my $holder = fork();
  POSIX::_exit(0) if !defined $holder || $holder;
  $0 = "supervisor-pty $name";
  $SIG{$_} = 'IGNORE' for qw(HUP INT QUIT PIPE TSTP TTIN TTOU);
  open(STDIN, '<', '/dev/null');
  open(STDERR, '>&', \*STDOUT);
  chdir('/');
  # input: frames from the named pipe (type, 16-bit length, body): 'i' bytes to type, 'w' rows
  # and columns; typed bytes wait here (1 MiB at most) while the terminal's own buffer is full
  my $in;
  sysopen($in, $input, POSIX::O_RDWR() | POSIX::O_NONBLOCK()) or undef $in if $input ne '';
  my $fl = fcntl($m, POSIX::F_GETFL(), 0);
  fcntl($m, POSIX::F_SETFL(), $fl | POSIX::O_NONBLOCK()) if defined $fl;
  my ($mfd, $ifd) = (fileno($m), defined $in ? fileno($in) : -1);
  my ($buf, $inbuf, $pending) = ('', '', '');
  while (1) {
    my ($rin, $win) = ('', '');
    vec($rin, $mfd, 1) = 1;
    vec($rin, $ifd, 1) = 1 if $ifd >= 0 && length($pending) < 1048576;
    vec($win, $mfd, 1) = 1 if length($pending);
    my ($rout, $wout) = ($rin, $win);
    if (select($rout, $wout, undef, undef) < 0) { next if $! + 0 == $EINTR; last }
    if (vec($rout, $mfd, 1)) {
      my $r = sysread($m, $buf, 65536);
      if (!defined $r) { last unless $! + 0 == $EINTR || $! + 0 == $EAGAIN }
      else {
        last if $r == 0;
        my $off = 0;
        while ($off < $r) {
          my $w = syswrite(STDOUT, $buf, $r - $off, $off);
          if (!defined $w) { next if $! + 0 == $EINTR; POSIX::_exit(1) }
          $off += $w;
        }
      }
    }
    if ($ifd >= 0 && vec($rout, $ifd, 1)) {
      my $chunk;
      my $r = sysread($in, $chunk, 65536);
      if (defined $r && $r > 0) {
        $inbuf .= $chunk;
        while (length($inbuf) >= 3) {
          my ($type, $len) = unpack('a n', $inbuf);
          last if length($inbuf) < 3 + $len;
          my $body = substr($inbuf, 3, $len);
          substr($inbuf, 0, 3 + $len) = '';
          if ($type eq 'i') { $pending .= $body }
          elsif ($type eq 'w' && $len == 4) { ioctl($m, $swinsz + 0, pack('S4', unpack('n n', $body), 0, 0)) }
        }
      }
    }
    if (length($pending) && vec($wout, $mfd, 1)) {
      my $w = syswrite($m, $pending);
      if (defined $w) { substr($pending, 0, $w) = '' }
      elsif ($! + 0 != $EINTR && $! + 0 != $EAGAIN) { $pending = '' }
    }
  }
  POSIX::_exit(0);
}
waitpid($pid, 0);
close $m;
my $t = POSIX::Termios->new;
if ($t->getattr(fileno($s))) { $t->setoflag($t->getoflag() & ~POSIX::OPOST()); $t->setattr(fileno($s), POSIX::TCSANOW()) }
my $ws = pack('S4', $rows, $cols, 0, 0);
ioctl($s, $swinsz + 0, $ws);
for my $fd (0, 1, 2) { POSIX::dup2(fileno($s), $fd) or fail('dup2') }
close $s if fileno($s) > 2;
exec { $file } @argv;
fail("exec $file");
`
