/*
 * --machine NAME|FILE and `mmlab machines`: the simulated machines of the
 * virtual-time mode (include/machine/vt.h) are files, the presets in the
 * repository's machines/ directory (found next to the binary: the
 * directory's ../machines, or $MMLAB_MACHINES).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <machine/vt.h>
#include <mmlab/lab.h>
#include <mmlab/vt_presets.h>

#define PRESET_EXT	".conf"

/* The presets' directory into @buf; "" if none is found. */
static void preset_dir(char *buf, size_t len)
{
	const char *env = getenv("MMLAB_MACHINES");
	char exe[PATH_MAX - 64];
	ssize_t n;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, len, "%s/../machines", exe);
			if (!access(buf, R_OK))
				return;
		}
	}
	snprintf(buf, len, "%s", access("machines", R_OK) ? "" : "machines");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The presets' names, sorted, NULL-terminated (free with free_names()). */
static char **preset_names(void)
{
	char dir[PATH_MAX];
	char **names = calloc(65, sizeof(*names));
	struct dirent *e;
	DIR *d;
	int n = 0;

	preset_dir(dir, sizeof(dir));
	if (!names || !dir[0] || !(d = opendir(dir)))
		return names;
	while ((e = readdir(d)) && n < 64) {
		size_t l = strlen(e->d_name);

		if (l > strlen(PRESET_EXT) && !strcmp(e->d_name + l - strlen(PRESET_EXT), PRESET_EXT))
			names[n++] = strndup(e->d_name, l - strlen(PRESET_EXT));
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	return names;
}

static void free_names(char **names)
{
	for (int i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

void lab_vt_describe_valid(char *buf, size_t len)
{
	char **names = preset_names();
	size_t used = snprintf(buf, len, "host, host-model");

	for (int i = 0; names && names[i] && used < len; i++)
		used += snprintf(buf + used, len - used, ", %s", names[i]);
	if (used < len)
		snprintf(buf + used, len - used, ", or a machine file (see mmlab machines)");
	free_names(names);
}

int lab_vt_resolve(const char *text, struct vt_machine *m, char *err, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], valid[LAB_ERR_LEN / 2];

	if (!strcmp(text, "host-model"))
		return vt_calibrate_host(m, err, len);
	if (strchr(text, '/') || !access(text, R_OK))
		return vt_machine_load(m, text, err, len);
	preset_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s%s", dir, text, PRESET_EXT);
	if (dir[0] && !access(path, R_OK))
		return vt_machine_load(m, path, err, len);
	lab_vt_describe_valid(valid, sizeof(valid));
	snprintf(err, len, "--machine: unknown machine '%s'; valid: %s", text, valid);
	return -1;
}

int lab_calibrate(FILE *out, FILE *err)
{
	struct vt_machine m;
	char msg[LAB_ERR_LEN];

	if (vt_calibrate_host(&m, msg, sizeof(msg))) {
		fprintf(err, "mmlab: calibrate: %s\n", msg);
		return 1;
	}
	fprintf(out, "# mmlab calibrate: this host as a machine file (--machine FILE reads it back)\n");
	vt_machine_print(out, &m);
	return 0;
}

int lab_machines(FILE *out, FILE *err)
{
	char **names = preset_names();
	char dir[PATH_MAX], path[PATH_MAX + 64], msg[LAB_ERR_LEN];
	int status = 0;

	preset_dir(dir, sizeof(dir));
	fprintf(out, "%-14s %5s  %s\n", "host", "-", "real threads on this machine's cores (the default)");
	fprintf(out, "%-14s %5ld  %s\n", "host-model", sysconf(_SC_NPROCESSORS_ONLN),
		"this host simulated: its CPUs as cores of one L3, latencies measured when used "
		"(mmlab calibrate prints them)");
	for (int i = 0; names && names[i]; i++) {
		struct vt_machine m;

		snprintf(path, sizeof(path), "%s/%s%s", dir, names[i], PRESET_EXT);
		if (vt_machine_load(&m, path, msg, sizeof(msg))) {
			fprintf(err, "mmlab: %s\n", msg);
			status = 1;
			continue;
		}
		fprintf(out, "%-14s %5d  %d socket%s x %d L3 x %d cores x %d SMT; %s%s\n", names[i],
			m.nr_cpus, m.sockets, m.sockets > 1 ? "s" : "", m.l3_per_socket, m.cores_per_l3,
			m.smt, m.desc, m.calibrated ? "" : " [NOT CALIBRATED: placeholder latencies]");
	}
	free_names(names);
	return status;
}
