#!/bin/sh
# Three ssh agents, each a real sshd in its own network namespace: a1 (a
# 2-node, 48-CPU machine, ed25519 host key), a2 (RSA host key, logged in
# with an RSA key), a3 (hashed known_hosts line). Their inventory is shown
# and cached, a queue is spread over them with one connection each, the
# agent program and the artifacts are uploaded once, and requires: picks
# the machines -- or refuses the job when none fits.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 2 || exit 1
ssh_agent_start 2 rsa 1 || exit 1
ssh_agent_start 3 ed25519 1 || exit 1

test_expect_success 'setup' '
	setup_bench --commits 3 &&
	ssh_known_hosts 1 2 &&
	echo "$(ssh_addr 3) $(cut -d" " -f1,2 agents/a3/host_key.pub)" >a3.kh &&
	ssh-keygen -q -H -f a3.kh >/dev/null 2>&1 &&
	grep -q "^|1|" a3.kh &&
	cat a3.kh >>keys/known_hosts &&
	{
		echo "agents:" &&
		ssh_agent_config 1 id_ed25519 "slots: 2" &&
		ssh_agent_config 2 id_rsa "slots: 2" &&
		ssh_agent_config 3 id_ed25519 "slots: 2"
	} >>bisectd.yaml
'

test_expect_success 'agents shows each machine with its inventory' '
	bisectctl agents >out &&
	grep "^a1 (ssh root@$(ssh_addr 1) port 22, boot none, 2 slots): up" out &&
	grep "^a2 (ssh root@$(ssh_addr 2) port 22, boot none, 2 slots): up" out &&
	grep "^a3 (ssh root@$(ssh_addr 3) port 22, boot none, 2 slots): up" out &&
	awk "/^a1 /{f=1} /^a2 /{f=0} f" out >a1.out &&
	grep -x "    nr_node 2" a1.out &&
	grep -x "    nr_cpu 48" a1.out &&
	grep -x "    memory 64G 68719476736" a1.out &&
	grep -x "    node1.cpulist 24-47" a1.out &&
	grep -x "    model Intel(R) Xeon(R) CPU E5-2697 v2 @ 2.70GHz" a1.out &&
	awk "/^a2 /{f=1} /^a3 /{f=0} f" out >a2.out &&
	grep -x "    nr_node 1" a2.out &&
	grep -x "    nr_cpu 8" a2.out &&
	test "$(db_query "SELECT count(*) FROM agents WHERE state = '\''up'\''
		AND nr_node > 0 AND inventory IS NOT NULL")" = 3
'

test_expect_success 'the inventory is cached: a second look connects nowhere' '
	before="$(ssh_logins 1) $(ssh_logins 2) $(ssh_logins 3)" &&
	bisectctl agents >out2 &&
	grep -x "    nr_node 2" out2 &&
	test "$(ssh_logins 1) $(ssh_logins 2) $(ssh_logins 3)" = "$before"
'

test_expect_success 'a queue is spread over the three agents, one connection each' '
	sed "s/^runs: 3/runs: 6/" job.yaml >job6.yaml &&
	before="$(ssh_logins 1) $(ssh_logins 2) $(ssh_logins 3)" &&
	bisectctl queue job6.yaml --commit master --wait >queue.out 2>queue.err &&
	test "$(runs_with_status done)" = 6 &&
	db_query "SELECT agent, count(*) FROM runs WHERE status = '\''done'\''
		GROUP BY agent ORDER BY agent" >spread &&
	printf "a1|2\na2|2\na3|2\n" >spread.want &&
	test_cmp_lines spread spread.want &&
	set -- $before &&
	test "$(ssh_logins 1)" = $(($1 + 1)) &&
	test "$(ssh_logins 2)" = $(($2 + 1)) &&
	test "$(ssh_logins 3)" = $(($3 + 1))
'

test_expect_success 'each run sequence number stays on one machine' '
	test "$(db_query "SELECT count(*) FROM (SELECT seq FROM runs
		GROUP BY seq HAVING count(DISTINCT agent) > 1)")" = 0 &&
	test "$(db_query "SELECT count(*) FROM job_agents")" = 3
'

test_expect_success 'the agent program and the artifacts went up once' '
	for n in 1 2 3; do
		test "$(ls agents/a$n/remote/bin | wc -l)" = 1 &&
		test "$(ls agents/a$n/remote/artifacts | wc -l)" = 1 &&
		ls agents/a$n/remote/artifacts/*/bench.sh || return 1
	done &&
	before=$(stat -c %Y agents/a1/remote/bin/*) &&
	bisectctl queue job6.yaml --commit master~1 --wait >/dev/null 2>&1 &&
	test "$(ls agents/a1/remote/bin | wc -l)" = 1 &&
	test "$(ls agents/a1/remote/artifacts | wc -l)" = 2
'

test_expect_success 'the results came back with the log and the environment' '
	run=$(db_query "SELECT id FROM runs WHERE agent = '\''a1'\''
		AND status = '\''done'\'' LIMIT 1") &&
	test -f state/runs/$run/result/result &&
	test -f state/runs/$run/result/output.log &&
	test -f state/runs/$run/agent.log &&
	grep -q "^score: " state/runs/$run/result/output.log &&
	test "$(db_query "SELECT value FROM run_env WHERE run = $run
		AND key = '\''nr_node'\''")" = 2 &&
	test "$(db_query "SELECT value FROM run_env WHERE run = $run
		AND key = '\''kernel'\''")" = 6.1.0-test
'

test_expect_success 'requires: sends a job only to the machines that fit' '
	{
		cat job.yaml &&
		echo "requires: { nr_node: \">=2\", memory: \">=32G\" }"
	} >numa.yaml &&
	bisectctl queue numa.yaml --commit master --wait >/dev/null 2>&1 &&
	job=$(db_query "SELECT id FROM jobs WHERE canonical LIKE
		'\''%nr_node%'\''") &&
	test "$(db_query "SELECT DISTINCT agent FROM runs WHERE job = $job")" = a1 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE job = $job AND
		status = '\''done'\''")" = 3
'

test_expect_success 'a job no agent can run is refused at queue time' '
	{
		cat job.yaml &&
		echo "requires: { nr_node: \">=4\" }"
	} >big.yaml &&
	test_expect_code 2 bisectctl queue big.yaml --commit master \
		>big.out 2>big.err &&
	cat big.err &&
	grep "error: .big.yaml.: no agent can run it: agent .a1.: .requires.nr_node. is .>=4., the machine has 2; agent .a2.: .requires.nr_node. is .>=4., the machine has 1; agent .a3.:" big.err &&
	test "$(db_query "SELECT count(*) FROM requests WHERE job_file LIKE
		'\''%big.yaml'\''")" = 0
'

test_done
