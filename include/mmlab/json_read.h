/*
 * A small, strict JSON reader for mmlab's own result files (compare,
 * merge): RFC 8259 values only, no extensions, no duplicate keys, a
 * bounded depth.  Errors are one line naming the line and column.
 */
#ifndef MMLAB_JSON_READ_H
#define MMLAB_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH	64

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	char *key;			/* member of an object: its key */
	char *text;			/* JSON_STRING: the value; JSON_NUMBER: the token as written */
	double num;			/* JSON_NUMBER; JSON_BOOL: 0 or 1 */
	int nr;				/* JSON_ARRAY, JSON_OBJECT: members */
	struct json *child, *next;	/* first member; next sibling */
};

/* Parses @len bytes; NULL and one line in @err on any error. */
struct json *json_parse(const char *text, size_t len, char *err, size_t errlen);
/*
 * The whole file @path: a regular file of at most LAB_MAX_INPUT bytes
 * (mmlab/files.h); the error names the file.
 */
struct json *json_read_file(const char *path, char *err, size_t errlen);
void json_free(struct json *j);

/* The member @key of an object, NULL if @j is not an object or lacks it. */
const struct json *json_get(const struct json *j, const char *key);
/* The member @key if it has @type, else NULL. */
const struct json *json_get_type(const struct json *j, const char *key, enum json_type type);
/* Same structure and values (object members in the same order). */
bool json_equal(const struct json *a, const struct json *b);
/*
 * The text of @j on one line: {"n":1}, or with @spaced {"n": 1, "m": 2}
 * as mmlab writes points; truncated to @len.
 */
void json_compact(const struct json *j, bool spaced, char *buf, size_t len);

#endif
