-- Continuous mode: the commits seen on tracked branches, in first-parent
-- order (seq), whether they were queued for testing, and the regressions
-- found by change-point detection, each reported (bisected) once.

CREATE TABLE tracked (
	repo		TEXT NOT NULL,
	branch		TEXT NOT NULL,
	seq		INTEGER NOT NULL,
	commit_oid	TEXT NOT NULL,
	base		INTEGER NOT NULL DEFAULT 0,	-- a configured base (tag)
	queued		INTEGER NOT NULL DEFAULT 0,
	seen		INTEGER NOT NULL,
	PRIMARY KEY (repo, branch, seq),
	UNIQUE (repo, branch, commit_oid)
);

CREATE TABLE regressions (
	id		INTEGER PRIMARY KEY,
	repo		TEXT NOT NULL,
	branch		TEXT NOT NULL,
	job		INTEGER NOT NULL REFERENCES jobs (id),
	metric		TEXT NOT NULL,
	good		TEXT NOT NULL,
	bad		TEXT NOT NULL,
	good_seq	INTEGER NOT NULL,
	bad_seq		INTEGER NOT NULL,
	change_pct	REAL NOT NULL,
	p_value		REAL NOT NULL,
	bisection	INTEGER REFERENCES requests (id),
	created		INTEGER NOT NULL
);
CREATE INDEX regressions_series ON regressions (repo, branch, job, metric);
