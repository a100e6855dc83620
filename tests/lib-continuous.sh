# The continuous-mode tests' fixture (t0602-t0609): setup_bench's
# repository becomes "source", the tests push its commits to a bare
# upstream.git, and the daemon fetches them into an empty "repo"; with the
# predicates those tests wait on.

# continuous_setup [TRACK]: upstream.git, source and the empty repo, and
# bisectd.yaml's repos and continuous sections, tracking TRACK ("master"
# by default). The caller appends what else its config needs.
continuous_setup() {
	git init -q --bare upstream.git &&
	mv repo source &&
	git init -q repo &&
	cat >bisectd.yaml <<-EOF
	repos:
	  - name: bench
	    path: repo
	    fetch: $TRASH/upstream.git
	    track: [${1:-master}]
	    build:
	      command: test ! -e broken
	      artifacts: [bench.sh, speed, noise]
	continuous:
	  jobs: [job.yaml]
	  interval: 1
	EOF
}

# continuous_mail PORT: bisectd.yaml's mail section, to the SMTP server
# listening on PORT.
continuous_mail() {
	cat >>bisectd.yaml <<-EOF
	mail:
	  smtp: smtp://127.0.0.1:$1
	  from: "bisectd <bisectd@example.org>"
	  to: [perf-reports@example.org]
	EOF
}

# push REV BRANCH: upstream's BRANCH set to source's REV, forced.
push() {
	git -C source push -q -f ../upstream.git "$1:refs/heads/$2"
}

# count SQL: the query's one value, or -1 while there is no database.
count() {
	db_query "$1" 2>/dev/null || echo -1
}

daemon_ready() {
	grep -q "bisectd: ready" daemon.log
}

# The daemon said it stopped (daemon_gone: its process is gone).
daemon_stopped() {
	grep -q "bisectd: stopped" daemon.log
}

daemon_gone() {
	! kill -0 "$(cat daemon.pid)" 2>/dev/null
}

# found N: at least N bisections found their culprit.
found() {
	test "$(count "SELECT count(*) FROM bisections WHERE status = 'found'")" -ge "$1"
}

# sent N: exactly N mails are sent.
sent() {
	test "$(count "SELECT count(*) FROM outbox WHERE status = 'sent'")" = "$1"
}
