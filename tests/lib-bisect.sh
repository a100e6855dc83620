# Sourced by the bisection end-to-end tests, after test-lib.sh: a generated
# repository with a noisy benchmark (tests/fixture-repo.py), a config using
# the embedded default (SQLite, the local agent) and a job file.

# setup_bench [fixture-repo.py options]: ./repo, ./bisectd.yaml, ./job.yaml
setup_bench() {
	rm -rf repo state bisectd.yaml job.yaml &&
	git init -q repo &&
	"$PYTHON3" "$BISECTD_SRC/tests/fixture-repo.py" "$@" |
		git -C repo fast-import --quiet &&
	git -C repo reset -q --hard master &&
	cat >bisectd.yaml <<-EOF &&
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: test ! -e broken
	      artifacts: [bench.sh, speed, noise]
	EOF
	cat >job.yaml <<-EOF
	testcase: microbench
	run: sh bench.sh
	runs: 3
	metric: microbench.score
	direction: higher
	EOF
}

# setup_bench_timed [fixture-repo.py options]: as setup_bench, with the
# CPU-timed benchmark (--timed): ./spin is built by the build command, and
# the machine's own noise, and any load beside it, is the benchmark's.
setup_bench_timed() {
	setup_bench --timed "$@" &&
	cat >bisectd.yaml <<-EOF
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: test ! -e broken && cc -O2 -o spin spin.c
	      artifacts: [bench.sh, speed, noise, spin]
	EOF
}

# The oid of the commit whose subject is exactly "$1".
commit_oid() {
	git -C repo log --all --format='%H %s' | awk -v s="$1" '
		{ oid = $1; $1 = ""; sub(/^ /, ""); if ($0 == s) print oid }'
}

culprit_oid() {
	git -C repo log master --grep='(culprit)' --format=%H | tail -n 1
}

# culprit_runs_oid FILE: the commit whose runs stand for the culprit of the
# result JSON in FILE: the culprit, or when it was only built, the commit
# of its image that was run (identical images are one test point).
culprit_runs_oid() {
	json_get "$1" "d.get(\"culprit_sampled_at\", d[\"culprit\"])"
}

# json_get FILE EXPR: print EXPR of the JSON object d in FILE, in Python.
json_get() {
	"$PYTHON3" -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"
}

db_query() {
	sqlite3 -cmd ".timeout 30000" state/bisectd.db "$1"
}

# json_has FILE KEY...: every KEY is in the object.
json_has() {
	f=$1
	shift
	"$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
missing = [k for k in sys.argv[2:] if k not in d]
if missing:
    print("missing:", missing)
    sys.exit(1)' "$f" "$@"
}

# The number of samples of METRIC at OID.
sample_count() {
	db_query "SELECT count(*) FROM samples s JOIN runs r ON s.run = r.id
		WHERE r.commit_oid = '$1' AND s.metric = '$2'"
}

runs_with_status() {
	db_query "SELECT count(*) FROM runs WHERE status = '$1'"
}
