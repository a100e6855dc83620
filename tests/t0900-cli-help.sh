#!/bin/sh
# The command line a Unix user expects: every bisectctl command answers
# --help (exit 0, usage on stdout) wherever it stands, both programs
# answer --version, the man pages render without a warning, and the
# sample configuration loads as it stands.
. "$(dirname "$0")/test-lib.sh"

commands() {
	bisectctl --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'
}

test_expect_success 'the command list is not empty' '
	test "$(commands | wc -l)" -ge 8
'

test_expect_success 'every command answers --help and -h with exit 0' '
	for c in $(commands); do
		bisectctl $c --help >out 2>err || { echo "$c: exit $?"; exit 1; }
		grep -q "^usage: bisectctl \[-c FILE\] $c" out || { echo "$c"; exit 1; }
		test ! -s err || { echo "$c wrote to stderr"; exit 1; }
		bisectctl $c -h >out || exit 1
		grep -q "^usage: bisectctl \[-c FILE\] $c" out || exit 1
	done
'

test_expect_success '--help among other arguments still helps, needing no config' '
	bisectctl -c /nonexistent.yaml bisect job.yaml --good a --help >out &&
	grep -q "^usage: bisectctl \[-c FILE\] bisect" out
'

test_expect_success 'an unknown option is still an error' '
	test_expect_code 2 bisectctl status --frobnicate 2>err
'

test_expect_success 'both programs answer --version' '
	bisectctl --version >v1 && grep -q "^bisectctl [0-9][0-9.]*$" v1 &&
	bisectd --version >v2 && grep -q "^bisectd [0-9][0-9.]*$" v2 &&
	test "$(cut -d" " -f2 v1)" = "$(cut -d" " -f2 v2)" &&
	bisectd --help >h && grep -q "^usage: bisectd" h &&
	test_expect_code 2 bisectd --frobnicate 2>err &&
	grep -q "^usage: bisectd" err
'

test_expect_success 'the man pages are mdoc and man -l shows them without warnings' '
	for m in bisectctl.1 bisectd.8 bisectd.yaml.5 bisectd-job.5; do
		f="$BISECTD_SRC/docs/man/$m"
		test -f "$f" || { echo "missing $m"; exit 1; }
		head -n 1 "$f" | grep -q "^\.Dd " || { echo "$m: not mdoc"; exit 1; }
		LC_ALL=C.UTF-8 groff -mandoc -ww -z -Tutf8 "$f" 2>err || exit 1
		test ! -s err || { cat err; exit 1; }
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" >page 2>err || exit 1
		test ! -s err || { cat err; exit 1; }
		grep -q "^NAME" page || exit 1
	done
'

test_expect_success 'the man page lists every command' '
	for c in $(commands); do
		grep -q "^\.It Cm $c" "$BISECTD_SRC/docs/man/bisectctl.1" ||
			{ echo "bisectctl.1 lacks $c"; exit 1; }
	done
'

test_expect_success 'the sample configuration loads as it stands' '
	sed "s|/var/lib/bisectd|$TRASH/state|" "$BISECTD_SRC/dist/bisectd.yaml" \
		>bisectd.yaml &&
	bisectctl -c bisectd.yaml status >out &&
	test -f "$TRASH/state/bisectd.db"
'

test_expect_success 'the systemd unit runs the daemon in the foreground' '
	grep -q "^ExecStart=@BINDIR@/bisectd -c /etc/bisectd/bisectd.yaml --foreground$" \
		"$BISECTD_SRC/dist/bisectd.service"
'

test_expect_success 'make install puts the pages, the unit and the sample in place' '
	make -s -C "$BISECTD_SRC" BUILD="$BISECTD_BUILD" DESTDIR="$TRASH/root" \
		PREFIX=/usr install >/dev/null &&
	test -f root/usr/share/man/man1/bisectctl.1 &&
	test -f root/usr/share/man/man8/bisectd.8 &&
	test -f root/usr/share/man/man5/bisectd.yaml.5 &&
	test -f root/usr/share/man/man5/bisectd-job.5 &&
	grep -q "^ExecStart=/usr/bin/bisectd " root/usr/lib/systemd/system/bisectd.service &&
	test -f root/usr/share/bisectd/examples/bisectd.yaml
'

test_done
