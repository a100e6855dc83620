#!/bin/sh
# The benchmarks with a server of their own, started on this machine by
# the program file's script and waited for (their port listening in
# /proc/net/tcp, or pg_ctl -w), then stopped: tbench with tbench_srv,
# iperf3 against a one-off iperf3 -s on 127.0.0.1, redis-benchmark
# against two redis-servers (one instance each), pgbench against a
# PostgreSQL cluster made for the run. Each end to end on the local agent
# with a short run, values checked against the real output; no server is
# left behind. Ports are picked free here, from a listening socket's.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

# A TCP port nothing listens on now (the kernel picks it, then it is closed).
free_port() {
	"$PYTHON3" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# None of the run's server processes is left (their pids from /proc).
no_leftovers() {
	for p in /proc/[0-9]*; do
		tr "\0" " " <"$p/cmdline" 2>/dev/null | grep -q "$1" &&
			{ echo "left running: $(tr "\0" " " <"$p/cmdline")"; return 1; }
	done
	return 0
}

test_expect_success 'setup' '
	lkp_needs tbench tbench_srv iperf3 redis-server redis-benchmark pgbench runuser &&
	lkp_setup
'

test_expect_success 'tbench: against tbench_srv, one instance per iteration' '
	printf "testcase: tbench\nnr_threads: 2\nruntime: 2s\niterations: 2\nruns: 1\nmonitors: []\n" >tb.yaml &&
	lkp_run tb.yaml &&
	log=$lkp_run_dir/output.log &&
	awk "/^Throughput/ { n++; t += \$2; h += 1 / \$2; l = \$8; sub(/max_latency=/, \"\", l); ml += l }
		END { printf \"%.17g %.17g %.17g %d\\n\", t / n, n / h, ml / n, n }" "$log" >want &&
	read t h ml n <want && test "$n" = 2 &&
	lkp_same "$(lkp_value tbench throughput_MB/s)" "$t" 1e-9 &&
	lkp_same "$(lkp_value tbench throughput_MB/s_harmonic_mean)" "$h" 1e-9 &&
	lkp_same "$(lkp_value tbench max_latency)" "$ml" 1e-9 &&
	test "$(lkp_value tbench clients)" = 2.0 &&
	test "$(lkp_count_instances tbench throughput_MB/s)" = 2 &&
	no_leftovers "^tbench_srv"
'

test_expect_success 'iperf: tcp over loopback, LKP names from the JSON' '
	port=$(free_port) &&
	printf "testcase: iperf\nruntime: 1s\nprotocol: tcp\nport: $port\nruns: 1\nmonitors: []\n" >ip.yaml &&
	lkp_run ip.yaml &&
	"$PYTHON3" -c "import json, sys
e = json.load(open(sys.argv[1]))[\"end\"]
print(repr(e[\"sum_sent\"][\"bits_per_second\"]), repr(e[\"sum_received\"][\"bits_per_second\"]))
" "$lkp_run_dir/iperf.json" >want &&
	read s r <want &&
	lkp_same "$(lkp_value iperf tcp.sender.bps)" "$s" 1e-9 &&
	lkp_same "$(lkp_value iperf tcp.receiver.bps)" "$r" 1e-9 &&
	no_leftovers "^iperf3 -s"
'

test_expect_success 'iperf: udp' '
	port=$(free_port) &&
	printf "testcase: iperf\nruntime: 1s\nprotocol: udp\nport: $port\nruns: 1\nmonitors: []\n" >ipu.yaml &&
	lkp_run ipu.yaml &&
	lkp_same "$(lkp_value iperf udp.bps)" "$("$PYTHON3" -c "import json, sys
print(repr(json.load(open(sys.argv[1]))[\"end\"][\"sum\"][\"bits_per_second\"]))" "$lkp_run_dir/iperf.json")" 1e-9
'

test_expect_success 'iperf: a port in use is an error of the run' '
	"$PYTHON3" -c "import socket, time
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()
open(\"port.tmp\", \"w\").write(str(s.getsockname()[1]))
import os; os.rename(\"port.tmp\", \"port.txt\"); time.sleep(120)" &
	holder=$! &&
	test_at_exit "kill $holder" &&
	test_wait_for 100 test -s port.txt &&
	printf "testcase: iperf\nruntime: 1s\nport: $(cat port.txt)\nruns: 1\nmonitors: []\n" >busy.yaml &&
	bisectctl queue busy.yaml --commit HEAD --wait >out 2>err;
	kill $holder &&
	grep "^error testcase exited with status 1" "$(lkp_last_run)/result" &&
	grep "iperf: port $(cat port.txt) is in use already" "$(lkp_last_run)/output.log"
'

test_expect_success 'redis: two servers, set and get, one instance per process' '
	port=$(free_port) &&
	cat >rd.yaml <<-EOF &&
	testcase: redis
	nr_processes: 2
	key_len: 2000
	requests: 4000
	test: set,get
	data_size: 16
	n_client: 5
	port: $port
	runs: 1
	monitors: []
	EOF
	lkp_run rd.yaml &&
	log=$lkp_run_dir/output.log &&
	for t in set get; do
		awk -v t="$t" "/====== / { cur = \$2 } cur == t && /throughput summary:/ { s += \$3; n++ }
			END { printf \"%.17g %d\\n\", s, n }" "$log" >want &&
		read s n <want && test "$n" = 2 &&
		lkp_same "$(lkp_value redis ${t}_total_throughput_rps)" "$s" 1e-9 &&
		lkp_same "$(lkp_value redis ${t}_avg_throughput_rps)" \
			"$(awk -v s=$s "BEGIN { printf \"%.17g\", s / 2 }")" 1e-9 &&
		test "$(lkp_count_instances redis ${t}_total_throughput_rps)" = 2 || return 1
	done &&
	grep -c "^  2000 requests completed" "$log" >n && test "$(cat n)" = 4 &&
	no_leftovers "^redis-server"
'

test_expect_success 'pgbench: a cluster of its own, LKP names' '
	cat >pg.yaml <<-\EOF &&
	testcase: pgbench
	scale_factor: 1
	runtime: 2s
	nr_task: 2
	worker_threads: 2
	runs: 1
	monitors: []
	EOF
	lkp_run pg.yaml &&
	log=$lkp_run_dir/output.log &&
	lkp_same "$(lkp_value pgbench transactions)" \
		"$(awk -F": " "/^number of transactions actually processed/ { print \$2 }" "$log")" &&
	lkp_same "$(lkp_value pgbench latency_ms)" \
		"$(awk "/^latency average = / { print \$4 }" "$log")" &&
	lkp_same "$(lkp_value pgbench tps_exclude_connect)" \
		"$(awk "/^tps = / { print \$3 }" "$log")" &&
	grep "^number of clients: 2$" "$log" &&
	no_leftovers "postgres -D /tmp/bisect-pgbench" &&
	! ls -d /tmp/bisect-pgbench.* 2>/dev/null | grep .
'

test_done
