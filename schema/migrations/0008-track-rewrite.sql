-- Issue 17: continuous mode along branches that are rebased and
-- force-pushed. A branch's series is its current first-parent line: the
-- commits a rewrite abandons leave `tracked` (their runs and samples stay
-- in the store), and seq goes on from the branch's next_seq, so that the
-- range of an old regression never names a new commit. A commit whose tree
-- was tested already in the repository is tested through that commit
-- (tested_as): a rebase with the same changes costs no build and no run.
-- A branch that is gone upstream is marked so; a regression row may be an
-- improvement, and a regression is closed by the improvement that fixed it.
ALTER TABLE tracked ADD COLUMN tree_oid TEXT;
ALTER TABLE tracked ADD COLUMN tested_as TEXT;
CREATE INDEX tracked_unqueued ON tracked (repo, branch, seq) WHERE queued = 0;

CREATE TABLE tracked_trees (
	repo		TEXT NOT NULL,
	tree_oid	TEXT NOT NULL,
	commit_oid	TEXT NOT NULL,	-- the commit built and run for it
	PRIMARY KEY (repo, tree_oid)
);

CREATE TABLE tracked_branches (
	repo		TEXT NOT NULL,
	branch		TEXT NOT NULL,
	next_seq	INTEGER NOT NULL DEFAULT 0,
	gone		INTEGER NOT NULL DEFAULT 0,	-- not upstream any more
	PRIMARY KEY (repo, branch)
);
INSERT INTO tracked_branches (repo, branch, next_seq)
	SELECT repo, branch, max(seq) + 1 FROM tracked GROUP BY repo, branch;

ALTER TABLE regressions ADD COLUMN kind TEXT NOT NULL DEFAULT 'regression'
	CHECK (kind IN ('regression', 'improvement'));
ALTER TABLE regressions ADD COLUMN fixed_by INTEGER REFERENCES regressions (id);
