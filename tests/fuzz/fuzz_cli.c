/*
 * fuzz_cli.c - a fuzz target for swapsim-replay's whole option parser: the
 * input is a command line (words separated by NUL bytes), given to the
 * program's own parse_args() (sim/swapsim-replay.c is compiled into this
 * target, its main() renamed) and through it to every value grammar of
 * sim/cli_parse.c (sizes and their hints, --swap specs, content mixes, every
 * workload's options). A workload the parser accepts is then created
 * (sws_workload_create()), so that what the command line lets through is
 * bounded work too: libFuzzer's -timeout catches a create that runs away.
 *
 * What it checks, besides memory safety and undefined behaviour (clang's
 * UBSan checks double-to-integer conversions): parse_args() returns 0 or 2,
 * never anything else; an accepted workload configuration creates, or is
 * refused with SWS_EINVAL (kbuild's job limit) and never anything else.
 * --help, -h, --version and --list-designs end the program by design and are
 * left out.
 */
#define main swapsim_replay_main
int swapsim_replay_main(int argc, char **argv);
#include "../../sim/swapsim-replay.c"
#undef main

#include "fuzz.h"

#define MAX_WORDS 48

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *quiet;
	if (!quiet)
		quiet = fopen("/dev/null", "w");
	if (size > 4096)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char *argv[MAX_WORDS + 2];
	int argc = 0;
	argv[argc++] = "swapsim-replay";
	for (char *p = text; p < text + size && argc <= MAX_WORDS; p += strlen(p) + 1) {
		if (!strcmp(p, "--help") || !strcmp(p, "-h") || !strcmp(p, "--version") ||
		    !strcmp(p, "--list-designs"))
			continue; /* they print and exit, by design */
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	struct opts o;
	memset(&o, 0, sizeof(o));
	o.argv_drop = calloc((size_t)argc + 1, sizeof(bool));
	FILE *err = stderr;
	stderr = quiet; /* the parser's messages (sanitizer reports go to fd 2 still) */
	int rc = o.argv_drop ? parse_args(&o, argc, argv) : 0;
	stderr = err;
	FUZZ_CHECK(rc == 0 || rc == 2, "parse_args returned %d", rc);
	if (!rc && o.have_workload) {
		struct sws_workload *wl = NULL;
		struct sws_workload_config wc = o.wl;
		int e = sws_workload_create(&wc, &wl);
		FUZZ_CHECK(!e || e == SWS_EINVAL, "a workload the parser accepted: %s", sws_strerror(e));
		FUZZ_CHECK(e || sws_workload_total(wl) > 0, "a workload of no records");
		sws_workload_destroy(wl);
	}
	free_opts(&o);
	free(text);
	return 0;
}
