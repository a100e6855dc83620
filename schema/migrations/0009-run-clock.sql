-- A run's start as the statistics read it is its boot's first wall clock
-- reading plus the monotonic time since (schema/store-series.c), so that a
-- step of the wall clock does not reorder runs. This index finds a boot's
-- first run.
CREATE INDEX runs_boot ON runs (boot_id, id) WHERE boot_id IS NOT NULL;
