# Sourced by the report tests (t06xx), after lib-bisect.sh: the fixture
# repository with the culprit's subject made hostile, to show that no
# header, HTML or SVG can be injected from a commit.

# The culprit's subject, as git stores it (CR LF, a bare CR, a tag).
HOSTILE_SUBJECT='mm/sl\u00fcb\r\nBcc: victim@example.com: <script>alert(1)</script> speed up\rX-Injected: 1 (culprit)'

# setup_hostile: ./repo (40 commits, commit 27 the culprit at -8% under
# 0.5% noise, with HOSTILE_SUBJECT), ./bisectd.yaml and ./job.yaml.
setup_hostile() {
	setup_bench --commits 40 --culprit 27 --change -8 --noise 0.5 &&
	rm -rf repo && git init -q repo &&
	"$PYTHON3" "$BISECTD_SRC/tests/fixture-repo.py" --commits 40 \
		--culprit 27 --change -8 --noise 0.5 |
	"$PYTHON3" -c '
import sys
data = sys.stdin.buffer.read()
old = b"commit 27 (culprit)"
new = sys.argv[1].encode("latin-1").decode("unicode_escape").encode()
frame = b"data %d\n%s\n"
assert frame % (len(old), old) in data
sys.stdout.buffer.write(data.replace(frame % (len(old), old),
                                     frame % (len(new), new), 1))' \
		"$HOSTILE_SUBJECT" |
	git -C repo fast-import --quiet &&
	git -C repo reset -q --hard master
}

# start_sink [PORT]: an SMTP server writing to ./mails; waits until the
# port accepts connections (the sink writes ./port once it listens).
start_sink() {
	rm -f port
	"$PYTHON3" "$BISECTD_SRC/tests/smtp-sink.py" --dir mails \
		--ready port ${1:+--port "$1"} >>sink.log 2>&1 &
	echo $! >sink.pid
	test_wait_for 100 test -s port && test_wait_for 50 port_open
}

port_open() {
	"$PYTHON3" -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' \
		"$(cat port)"
}

stop_sink() {
	kill "$(cat sink.pid)" && rm -f sink.pid &&
	test_wait_for 100 eval '! port_open'
}

mails() {
	ls mails | grep -c '\.eml$'
}

# screenshot URL PNG WIDTH,HEIGHT: the page as headless Chromium draws it
# (no network, no GPU, a profile in the trash directory).
screenshot() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$TRASH/chromium" --screenshot="$2" \
		--window-size="$3" "$1" >>chromium.log 2>&1
}

# report_section FILE HEADER: the lines after the line HEADER, from the
# first line that is not empty up to the next empty line.
report_section() {
	awk -v h="$2" 'on && $0 == "" && n { exit }
		on && $0 != "" { print; n++ } $0 == h { on = 1 }' "$1"
}

# env_more FILE: N of "and N more identical settings" in FILE's
# environment section.
env_more() {
	report_section "$1" "environment of the culprit's runs:" |
		sed -n 's/^	and \([0-9]*\) more identical settings; .*/\1/p'
}

# last_env_count OID KEYS...: how many of the KEYS (all with none) the
# last done run at OID recorded.
last_env_count() {
	oid=$1
	shift
	where=
	for k in "$@"; do
		where="$where${where:+,}'$k'"
	done
	db_query "SELECT count(*) FROM run_env WHERE run = (SELECT id FROM runs
		WHERE commit_oid = '$oid' AND status = 'done' ORDER BY seq DESC
		LIMIT 1)${where:+ AND key IN ($where)}"
}
