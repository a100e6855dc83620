-- Kernel builds. kconfig is the job's kconfig fragment the build was queued
-- with (the recipe id hashes it; the build child needs its text).
-- image_hash is the sha256 of the kernel image the build made (of every
-- artifact when there is no image) and kernel_release what `uname -r`
-- must say once it runs: two builds of one recipe with the same
-- image_hash ran the same kernel, so a commit whose image equals its
-- parent's cannot have changed what was measured.

ALTER TABLE builds ADD COLUMN kconfig TEXT;
ALTER TABLE builds ADD COLUMN image_hash TEXT;
ALTER TABLE builds ADD COLUMN kernel_release TEXT;

CREATE INDEX builds_image ON builds (repo, recipe, image_hash)
	WHERE image_hash IS NOT NULL;
