/*
 * A result file written by `mmlab run --json`, read back for compare and
 * merge: loaded, its shape checked once, and the accessors both need.
 */
#ifndef MMLAB_RESULT_FILE_H
#define MMLAB_RESULT_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include <mmlab/json_read.h>

struct result_file {
	const char *path;
	struct json *root;
	const char *experiment;
	const struct json *params;	/* object */
	const struct json *results;	/* array of checked result objects */
	const struct json *points;	/* array, NULL in files older than "points" */
	const struct json *shard;	/* object, NULL unless sharded */
};

/*
 * Reads @path and checks what compare and merge rely on: "experiment",
 * "params", "results" whose members each have variant, point, metric,
 * unit, higher_is_better and samples (numbers or null).  Returns 0, or -1
 * with one line in @err naming the file and the problem.
 */
int result_file_load(struct result_file *f, const char *path, char *err, size_t len);
void result_file_free(struct result_file *f);

/* A result's samples, nulls left out, into a malloc'ed array; returns the count. */
int result_samples(const struct json *result, double **values);
/* The point's label from "points" ("2"), else its JSON text. */
void result_point_label(const struct result_file *f, const struct json *point,
			char *buf, size_t len);
/* The same variant, metric and point: what compare pairs. */
bool result_same_cell(const struct json *a, const struct json *b);

#endif
