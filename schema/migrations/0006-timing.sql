-- When and where each run ran, what else took its machine meanwhile, and
-- the order runs are dispatched in (issue 11, docs/agents.md).
--
-- started_* and ended_* are the testcase's start and end as the agent saw
-- them: wall clock (Unix seconds, UTC) and the agent's CLOCK_MONOTONIC
-- (seconds since its boot), and boot_id the boot it ran in
-- (/proc/sys/kernel/random/boot_id). The agent is runs.agent.
ALTER TABLE runs ADD COLUMN started_wall REAL;
ALTER TABLE runs ADD COLUMN started_mono REAL;
ALTER TABLE runs ADD COLUMN ended_wall REAL;
ALTER TABLE runs ADD COLUMN ended_mono REAL;
ALTER TABLE runs ADD COLUMN boot_id TEXT;

-- A run whose machine something else took (docs/monitors.md,
-- "Interference") is set aside: the attempt goes into run_set_aside, its
-- samples are not recorded, and the run is pending again. set_aside counts
-- those attempts; they do not count against the cap on failed attempts.
-- A run that is counted although it was disturbed (the job says
-- "disturbed: keep", or it was set aside as often as allowed) keeps why in
-- disturbed.
ALTER TABLE runs ADD COLUMN set_aside INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN disturbed TEXT;

CREATE TABLE run_set_aside (
	run		INTEGER NOT NULL REFERENCES runs (id),
	nth		INTEGER NOT NULL,	-- 1, 2, ... per run
	attempt		INTEGER NOT NULL,
	agent		TEXT,
	why		TEXT NOT NULL,
	other_cpu	REAL,		-- interference.other_cpu%
	runqueue	REAL,		-- interference.runqueue
	steal		REAL,		-- interference.steal%
	value		REAL,		-- the job's headline metric, if any
	started_wall	REAL,
	boot_id		TEXT,
	at		INTEGER NOT NULL,
	PRIMARY KEY (run, nth)
);

-- The order pending runs are dispatched in: the scheduler numbers each
-- batch of new runs (NULL until then) interleaving their commits in a
-- random order seeded by their ids (bisectd/dispatch.c).
ALTER TABLE runs ADD COLUMN dispatch_key INTEGER;
CREATE INDEX runs_dispatch ON runs (dispatch_key, id) WHERE status = 'pending';
