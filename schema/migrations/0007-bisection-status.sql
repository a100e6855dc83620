-- Issue 11: every build records the digest of all its artifacts, what a
-- run gets (image_hash is the kernel image's alone when there is one):
-- builds with equal digests are one test point of a bisection.
ALTER TABLE builds ADD COLUMN artifacts_hash TEXT;

-- And a bisection may end `unconfirmed` (a culprit was pointed at,
-- but its own evidence contradicts it: never mailed as one) or
-- `inconclusive` (the ends were not told apart, yet a change worth finding
-- could be there). SQLite cannot change a CHECK in place: the table is
-- made again with the same columns and rows (SQLite's own procedure: the
-- migrations run before foreign keys are turned on, so the rows of steps,
-- reports and mail that refer to a bisection refer to the new table).
CREATE TABLE bisections_0007 (
	id		INTEGER PRIMARY KEY REFERENCES requests (id),
	job		INTEGER NOT NULL REFERENCES jobs (id),
	repo		TEXT NOT NULL,
	good		TEXT NOT NULL,
	bad		TEXT NOT NULL,
	metric		TEXT NOT NULL,
	direction	TEXT NOT NULL,
	status		TEXT NOT NULL DEFAULT 'running'
			CHECK (status IN ('running', 'found', 'no_change',
			    'ambiguous', 'failed', 'unconfirmed',
			    'inconclusive')),
	progress	TEXT,
	result		TEXT,		-- JSON, as `bisectctl bisect --json` prints it
	created		INTEGER NOT NULL,
	finished	INTEGER
);
INSERT INTO bisections_0007 (id, job, repo, good, bad, metric, direction,
	status, progress, result, created, finished)
	SELECT id, job, repo, good, bad, metric, direction, status, progress,
	    result, created, finished FROM bisections;
DROP TABLE bisections;
ALTER TABLE bisections_0007 RENAME TO bisections;
