/*
 * The journal of a run's knobs: before a knob is written its old value
 * goes to a file of its own (DIR/knob-HASH of its path), removed once the
 * value is back; what a killed agent left is put back by the next run
 * (docs/agents.md, "Knobs").
 */
#ifndef AGENTS_KNOB_JOURNAL_H
#define AGENTS_KNOB_JOURNAL_H

struct knob;
struct knob_set;
struct strbuf;

/* Where the journals are (allocated): $BISECT_AGENT_KNOB_DIR or ROOT/... */
char	*knob_journal_dir(const char *root);
/* The journal of the knob file full under dir (allocated). */
char	*knob_journal_path(const char *dir, const char *full);
/* Written before the knob is: temporary, fsync, rename, the dir synced. */
int	 knob_journal_write(const struct knob_set *, const struct knob *,
	     const char *full, char **cause);
int	 knob_journal_remove(const char *jpath, char **cause);
/*
 * What the journal at jpath says put back, its knob's file held by the
 * caller: 0 (a note added to done), or -1 with *cause (the journal stays).
 */
int	 knob_journal_replay(const char *root, const char *jpath,
	     struct strbuf *done, char **cause);
/*
 * Before a run: every journal under knob_journal_dir(root) whose knob no
 * run holds (its agent was killed, or could not restore it) is put back:
 * the old value written, read back, the journal removed. 0 with *done
 * (NULL or allocated: "NAME PATH now -> old (left by pid N); ..."), or -1
 * with *cause naming what could not be put back (its journal stays).
 */
int	 knob_journal_reap(const char *root, char **done, char **cause);

#endif
