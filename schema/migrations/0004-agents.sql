-- Agents as the scheduler sees them, and where each job's runs go.
--
-- An agent is 'unknown' until probed (at every scheduler start), 'up' when
-- it answered, 'down' after a failure (probed again at retry_at, with the
-- wait doubling up to the agent's probe_interval), 'refused' after a
-- permanent failure (an unknown or changed host key, a refused key): it is
-- probed again only when stamp, a digest of its configuration and of its
-- key and known_hosts files, changes. inventory is the last
-- `bisect-agent info` it gave, refreshed by every successful probe.

CREATE TABLE agents (
	name		TEXT PRIMARY KEY,
	state		TEXT NOT NULL DEFAULT 'unknown'
			CHECK (state IN ('unknown', 'up', 'down', 'refused')),
	error		TEXT,
	since		INTEGER NOT NULL,
	failures	INTEGER NOT NULL DEFAULT 0,
	retry_at	INTEGER,
	stamp		TEXT,
	inventory	TEXT,
	inventory_at	INTEGER,
	nr_node		INTEGER,
	nr_cpu		INTEGER,
	memory		INTEGER
);

-- The machines a job's runs are spread over: the run with sequence number
-- seq (at any commit) goes to position seq % (number of positions), so
-- every commit of the job gets the same share on each machine. A position
-- moves to another agent only while the job has no finished run on the
-- one it leaves, or when that one is refused for good.
CREATE TABLE job_agents (
	job		INTEGER NOT NULL REFERENCES jobs (id),
	position	INTEGER NOT NULL,
	agent		TEXT NOT NULL,
	PRIMARY KEY (job, position)
);

-- Every failed attempt of a run, with the agent it failed on and why: a
-- retried run keeps only its last error in runs.error.
CREATE TABLE run_failures (
	run		INTEGER NOT NULL REFERENCES runs (id),
	attempt		INTEGER NOT NULL,
	agent		TEXT,
	error		TEXT,
	at		INTEGER NOT NULL,
	PRIMARY KEY (run, attempt)
);

-- When the attempt now (or last) holding a run was dispatched to its agent
-- and when it came back, to the microsecond (Unix seconds): the dispatch
-- latency and how busy the agents were kept (bench/dispatch-ssh.sh).
ALTER TABLE runs ADD COLUMN dispatched_at REAL;
ALTER TABLE runs ADD COLUMN returned_at REAL;
