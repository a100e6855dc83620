# Sourced by tests/tNNNN-*.sh. Gives each test a private trash directory with
# HOME inside it, fixed commit dates, TAP output, and cleanup at exit, in the
# manner of git's t/test-lib.sh.
#
#   test_expect_success 'name' 'commands'
#   test_done
#
# TEST_KEEP_TRASH=1 keeps the trash directory when a test failed, =always
# keeps it anyway; TEST_TRACE=1 traces each test's commands (set -x).

set -u
TEST_NAME=$(basename "$0" .sh)
BISECTD_SRC=${BISECTD_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
BISECTD_BUILD=${BISECTD_BUILD:-$BISECTD_SRC/build}
PATH=$BISECTD_BUILD/bin:$PATH
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-$TEST_NAME.XXXXXX")
HOME=$TRASH
export PATH HOME BISECTD_SRC BISECTD_BUILD TRASH
unset BISECTD_CONFIG
GIT_AUTHOR_NAME='A U Thor'
GIT_AUTHOR_EMAIL='author@example.com'
GIT_COMMITTER_NAME='C O Mitter'
GIT_COMMITTER_EMAIL='committer@example.com'
GIT_AUTHOR_DATE='1700000000 +0000'
GIT_COMMITTER_DATE='1700000000 +0000'
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
git config --global init.defaultBranch master
git config --global user.name 'A U Thor'
git config --global user.email author@example.com

test_count=0
test_failed=0

# Kept in a file, so that a call inside a test_expect_success body (a
# subshell) still reaches the cleanup at exit; the newest runs first.
test_at_exit() {
	{ printf '%s\n' "$1"; cat "$TRASH/.at-exit" 2>/dev/null || :; } \
	    >"$TRASH/.at-exit.new" && mv "$TRASH/.at-exit.new" "$TRASH/.at-exit"
}

test_run_cleanup() {
	if [ -f "$TRASH/.at-exit" ]; then
		test_cleanup_cmds=$(cat "$TRASH/.at-exit")
		eval "$test_cleanup_cmds" >/dev/null 2>&1 || true
	fi
	if [ "${TEST_KEEP_TRASH:-}" != always ] &&
	   { [ "$test_failed" = 0 ] || [ -z "${TEST_KEEP_TRASH:-}" ]; }; then
		rm -rf "$TRASH"
	else
		echo "# trash kept in $TRASH"
	fi
}
trap test_run_cleanup EXIT

# Advance the fixed commit date by one minute per commit, for stable ids.
test_tick() {
	test_tick_n=$(( ${test_tick_n:-0} + 60 ))
	GIT_AUTHOR_DATE="$((1700000000 + test_tick_n)) +0000"
	GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}

test_expect_success() {
	test_count=$((test_count + 1))
	if (cd "$TRASH" && eval "${TEST_TRACE:+set -x;} $2") \
	    >"$TRASH/.out.$test_count" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		# on stderr, which prove shows without -v (CI's log)
		printf '%s\n' "$2" | sed -e 's/^/#	/' >&2
		sed -e 's/^/#   /' "$TRASH/.out.$test_count" | tail -40 >&2
	fi
}

test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # skip $1: $2"
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
}

# Wait until a command succeeds, up to N tenths of a second: a readiness
# check, never a bare sleep that hopes.
test_wait_for() {
	tries=$1
	shift
	while ! "$@" >/dev/null 2>&1; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# The Debian interpreter, which has python3-scipy (pyenv's may be first).
PYTHON3=/usr/bin/python3

# test_cmp_lines GOT WANT: the files are equal, else show both.
test_cmp_lines() {
	if ! cmp -s "$1" "$2"; then
		echo "got:"; cat "$1"; echo "want:"; cat "$2"
		return 1
	fi
}

# test_expect_code N CMD...: CMD exits with status N.
test_expect_code() {
	want=$1
	shift
	"$@"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "exit status $got, want $want: $*"
		return 1
	fi
}
