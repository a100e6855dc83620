/*
 * boot: kexec through an ssh transport with no link (bisectctl, a
 * benchmark): the transport's own connection is dropped by the reboot and
 * made again by the transport itself. It needs the fake machine of
 * tests/t0408-ssh-boot.sh, which runs this with BISECTD_TEST_SSH_BOOT set
 * to "CONFIG AGENT ARTIFACT_DIR RUN_DIR JOBFILE"; in make check's own list
 * it has no machine and skips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/result.h"
#include "agents/transport.h"
#include "jobs/config.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/xalloc.h"

int
main(void)
{
	const char			*spec = getenv("BISECTD_TEST_SSH_BOOT");
	const char			*build = getenv("BISECTD_BUILD");
	const struct config_agent	*a;
	struct config			*cfg = NULL;
	struct transport		*t = NULL;
	struct transport_job		 tj;
	struct result			*res = NULL;
	char				 conf[1024], agent[64], art[1024];
	char				 run[1024], jobfile[1024];
	char				*text = NULL, *cause = NULL, *agent_path;
	char				*resdir, *info = NULL;
	size_t				 len;
	int				 r;

	if (spec == NULL || build == NULL || sscanf(spec, "%1023s %63s %1023s "
	    "%1023s %1023s", conf, agent, art, run, jobfile) != 5) {
		printf("1..0 # skip: run by tests/t0408-ssh-boot.sh\n");
		return 0;
	}
	agent_path = xasprintf("%s/bin/bisect-agent", build);
	ok(config_load(conf, &cfg, &cause) == 0, "the config loads: %s",
	    cause != NULL ? cause : "");
	ok(file_read(jobfile, &text, &len, &cause) == 0, "the job reads");
	a = cfg != NULL ? config_agent_find(cfg, agent) : NULL;
	ok(a != NULL, "agent '%s' is in the config", agent);
	if (a == NULL || text == NULL)
		return tap_done();
	r = transport_open(a, agent_path, &t, &cause);
	is_int(r, 0, "the transport connects by itself: %s",
	    cause != NULL ? cause : "");
	if (r != 0)
		return tap_done();
	memset(&tj, 0, sizeof tj);
	tj.run_dir = run;
	tj.job_text = text;
	tj.artifact_dir = art;
	tj.timeout = 600;
	r = transport_run(t, &tj, NULL, &cause);
	is_int(r, 0, "the run boots and runs: %s", cause != NULL ? cause : "");
	resdir = path_join(run, "result");
	if (r == 0 && result_load(resdir, &res, &cause) == 0) {
		ok(res->error == NULL, "the run did not fail: %s",
		    res->error != NULL ? res->error : "");
		is_str(result_env_get(res, "boot"), "kexec", "env boot");
		is_str(result_env_get(res, "kernel"), "6.1.0-bisect",
		    "the agent ran on the booted kernel");
	} else
		ok(0, "the result loads: %s", cause != NULL ? cause : "");
	free(cause);
	cause = NULL;
	r = transport_info(t, &info, &cause);
	is_int(r, 0, "the new connection serves the next call: %s",
	    cause != NULL ? cause : "");
	transport_close(t);
	result_free(res);
	config_free(cfg);
	free(resdir);
	free(text);
	free(info);
	free(agent_path);
	free(cause);
	return tap_done();
}
