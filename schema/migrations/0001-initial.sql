-- The state of bisectd. The database is the single source of truth: every
-- request, job, build, run, sample, bisection step and report is a row.
-- Times are Unix seconds (UTC).

CREATE TABLE requests (
	id		INTEGER PRIMARY KEY,
	kind		TEXT NOT NULL CHECK (kind IN ('queue', 'compare', 'bisect')),
	status		TEXT NOT NULL DEFAULT 'pending'
			CHECK (status IN ('pending', 'running', 'done', 'failed')),
	repo		TEXT NOT NULL,
	job_file	TEXT NOT NULL,
	-- the request's own key, for finding an identical unfinished one
	dedup_key	TEXT NOT NULL,
	args		TEXT NOT NULL DEFAULT '{}',	-- JSON
	error		TEXT,
	created		INTEGER NOT NULL,
	finished	INTEGER
);
CREATE INDEX requests_active ON requests (status) WHERE status IN ('pending', 'running');
CREATE INDEX requests_dedup ON requests (dedup_key);

-- An expanded job, identified by the hash of its canonical text.
CREATE TABLE jobs (
	id		INTEGER PRIMARY KEY,
	job_id		TEXT NOT NULL UNIQUE,
	testcase	TEXT NOT NULL,
	description	TEXT NOT NULL,
	canonical	TEXT NOT NULL,
	metric		TEXT,
	direction	TEXT NOT NULL DEFAULT 'unknown',
	created		INTEGER NOT NULL
);

-- Which jobs a request asked for, and at which commits.
CREATE TABLE request_jobs (
	request		INTEGER NOT NULL REFERENCES requests (id),
	job		INTEGER NOT NULL REFERENCES jobs (id),
	PRIMARY KEY (request, job)
);
CREATE TABLE request_commits (
	request		INTEGER NOT NULL REFERENCES requests (id),
	seq		INTEGER NOT NULL,
	commit_oid	TEXT NOT NULL,
	rev		TEXT NOT NULL,
	PRIMARY KEY (request, seq)
);

CREATE TABLE builds (
	id		INTEGER PRIMARY KEY,
	repo		TEXT NOT NULL,
	commit_oid	TEXT NOT NULL,
	recipe		TEXT NOT NULL,
	status		TEXT NOT NULL DEFAULT 'pending'
			CHECK (status IN ('pending', 'running', 'ok', 'failed')),
	attempts	INTEGER NOT NULL DEFAULT 0,
	requeues	INTEGER NOT NULL DEFAULT 0,
	artifact_dir	TEXT,
	log_path	TEXT,
	log_tail	TEXT,
	seconds		REAL,
	error		TEXT,
	created		INTEGER NOT NULL,
	started		INTEGER,
	finished	INTEGER,
	UNIQUE (repo, commit_oid, recipe)
);
CREATE INDEX builds_active ON builds (status) WHERE status IN ('pending', 'running');

-- One execution of a job at a commit. seq numbers the samples of one
-- (job, repo, commit); a run's token changes every time it is started, so
-- that results of a stale attempt can never be recorded.
CREATE TABLE runs (
	id		INTEGER PRIMARY KEY,
	job		INTEGER NOT NULL REFERENCES jobs (id),
	repo		TEXT NOT NULL,
	commit_oid	TEXT NOT NULL,
	seq		INTEGER NOT NULL,
	recipe		TEXT NOT NULL,
	status		TEXT NOT NULL DEFAULT 'pending'
			CHECK (status IN ('pending', 'running', 'done', 'failed', 'skipped')),
	agent		TEXT,
	token		INTEGER NOT NULL DEFAULT 0,
	attempts	INTEGER NOT NULL DEFAULT 0,
	requeues	INTEGER NOT NULL DEFAULT 0,
	run_dir		TEXT,
	error		TEXT,
	exit_status	INTEGER,
	created		INTEGER NOT NULL,
	started		INTEGER,
	finished	INTEGER,
	UNIQUE (job, repo, commit_oid, seq)
);
CREATE INDEX runs_active ON runs (status) WHERE status IN ('pending', 'running');
CREATE INDEX runs_commit ON runs (job, repo, commit_oid, status);

-- One metric of one run; instances holds the per-instance values (per
-- process, thread or node) as a JSON array, or NULL.
CREATE TABLE samples (
	id		INTEGER PRIMARY KEY,
	run		INTEGER NOT NULL REFERENCES runs (id),
	metric		TEXT NOT NULL,
	value		REAL NOT NULL,
	instances	TEXT,
	UNIQUE (run, metric)
);
CREATE INDEX samples_metric ON samples (metric);

-- The environment a run saw (kernel, THP, numa_balancing, ...).
CREATE TABLE run_env (
	run		INTEGER NOT NULL REFERENCES runs (id),
	key		TEXT NOT NULL,
	value		TEXT NOT NULL,
	PRIMARY KEY (run, key)
);

-- A bisection shares its id with the request that asked for it.
CREATE TABLE bisections (
	id		INTEGER PRIMARY KEY REFERENCES requests (id),
	job		INTEGER NOT NULL REFERENCES jobs (id),
	repo		TEXT NOT NULL,
	good		TEXT NOT NULL,
	bad		TEXT NOT NULL,
	metric		TEXT NOT NULL,
	direction	TEXT NOT NULL,
	status		TEXT NOT NULL DEFAULT 'running'
			CHECK (status IN ('running', 'found', 'no_change', 'ambiguous', 'failed')),
	progress	TEXT,
	result		TEXT,		-- JSON, as `bisectctl bisect --json` prints it
	created		INTEGER NOT NULL,
	finished	INTEGER
);

-- The tested commits of a bisection with their final verdict, in the order
-- they were first tested: `bisectctl log` prints them for git bisect replay.
CREATE TABLE bisection_steps (
	bisection	INTEGER NOT NULL REFERENCES bisections (id),
	seq		INTEGER NOT NULL,
	commit_oid	TEXT NOT NULL,
	verdict		TEXT NOT NULL CHECK (verdict IN ('good', 'bad', 'skip')),
	samples		INTEGER NOT NULL,
	mean		REAL,
	PRIMARY KEY (bisection, seq)
);

CREATE TABLE reports (
	id		INTEGER PRIMARY KEY,
	bisection	INTEGER NOT NULL REFERENCES bisections (id),
	headline	TEXT NOT NULL,
	body		TEXT NOT NULL,
	created		INTEGER NOT NULL,
	sent		INTEGER
);
