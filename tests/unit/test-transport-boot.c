/*
 * Unit tests for what booting adds to a run's limit
 * (transport_timeout_boot, transport_timeout_agent_run): nothing for an
 * agent that does not boot, the job's boot_timeout for qemu, that plus
 * the fallback and the kexec steps for kexec; and an ssh agent with boot:
 * kexec and several slots, or an unknown boot method, refused by name.
 */
#include <stdlib.h>
#include <string.h>

#include "agents/transport.h"
#include "tests/unit/tap.h"
#include "util/xalloc.h"

static struct job *
parse(const char *text)
{
	struct job	**jobs = NULL;
	struct job	 *j;
	size_t		  nr = 0;

	if (job_parse("job.yaml", text, strlen(text), &jobs, &nr, NULL) != 0 ||
	    nr != 1)
		return NULL;
	j = jobs[0];
	jobs[0] = NULL;
	job_list_free(jobs, nr);
	return j;
}

int
main(void)
{
	struct config_agent	 a;
	struct transport	*t = NULL;
	struct job		*plain, *slow;
	char			*cause = NULL;
	unsigned		 base;

	plain = parse("testcase: x\nrun: true\ntimeout: 10s\n");
	slow = parse("testcase: x\nrun: true\ntimeout: 10s\n"
	    "boot_timeout: 200\n");
	ok(plain != NULL && slow != NULL, "the jobs parse");
	if (plain == NULL || slow == NULL)
		return tap_done();
	base = transport_timeout_run(plain);

	memset(&a, 0, sizeof a);
	a.name = "a1";
	is_int(transport_timeout_boot(NULL, plain), 0, "no agent: no boot");
	is_int(transport_timeout_boot(&a, plain), 0, "no boot: nothing");
	is_int(transport_timeout_agent_run(&a, plain), base,
	    "no boot: the run's limit as it was");
	a.boot = "none";
	is_int(transport_timeout_boot(&a, plain), 0, "boot: none: nothing");
	a.boot = "qemu";
	is_int(transport_timeout_boot(&a, plain), 60, "qemu: the default "
	    "boot_timeout");
	is_int(transport_timeout_boot(&a, slow), 200, "qemu: the job's "
	    "boot_timeout");
	is_int(transport_timeout_agent_run(&a, slow), base + 200,
	    "qemu: added to the run's limit");
	a.boot = "kexec";
	is_int(transport_timeout_boot(&a, slow), 200 +
	    TRANSPORT_KEXEC_FALLBACK + 120, "kexec: boot, fallback, steps");
	ok(transport_timeout_agent_run(&a, slow) > base + 200 +
	    TRANSPORT_KEXEC_FALLBACK, "kexec: added to the run's limit");

	a.transport = "ssh";
	a.host = "192.0.2.1";
	a.user = "lkp";
	a.identity = "/nonexistent/id";
	a.known_hosts = "/nonexistent/known_hosts";
	a.slots = 2;
	is_int(transport_open(&a, "/bin/true", &t, &cause), -1,
	    "kexec with two slots is refused");
	ok(cause != NULL && strstr(cause, "agent 'a1': boot: kexec reboots "
	    "the machine for each run: it takes 'slots: 1', not 2") != NULL,
	    "by name: %s", cause);
	free(cause);
	cause = NULL;
	a.boot = "floppy";
	a.slots = 1;
	is_int(transport_open(&a, "/bin/true", &t, &cause), -1,
	    "an unknown boot method is refused");
	ok(cause != NULL && strstr(cause, "unknown boot method 'floppy'") !=
	    NULL, "by name: %s", cause);
	free(cause);

	job_free(plain);
	job_free(slow);
	return tap_done();
}
