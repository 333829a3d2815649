/*
 * Facts about the machine a run happens on, for option limits and the
 * JSON record.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mmlab/host.h>

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

static void read_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		trim(colon);
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

void lab_machine_probe(struct lab_machine *m)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES);
	long page_size = sysconf(_SC_PAGE_SIZE);

	m->cpus = cpus > 0 ? (int)cpus : 1;
	m->name[0] = '\0';
	m->mem_bytes = pages > 0 && page_size > 0 ?
		(unsigned long long)pages * (unsigned long long)page_size : 0;
	read_cpu_model(m->cpu_model, sizeof(m->cpu_model));
}

void lab_git_rev(char *buf, size_t len)
{
	FILE *p = popen("git rev-parse --short HEAD 2>/dev/null", "r");
	char line[64] = "";

	snprintf(buf, len, "unknown");
	if (!p)
		return;
	if (fgets(line, sizeof(line), p))
		trim(line);
	if (pclose(p) == 0 && line[0])
		snprintf(buf, len, "%s", line);
}
