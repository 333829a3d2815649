/*
 * Result files read back: the shape check that lets compare and merge
 * trust every field they use afterwards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/result_file.h>

static int bad(char *err, size_t len, const char *path, const char *what, int idx)
{
	if (idx < 0)
		snprintf(err, len, "'%s' is not an mmlab result: %s", path, what);
	else
		snprintf(err, len, "'%s' is not an mmlab result: results[%d] %s", path, idx, what);
	return -1;
}

static const char *check_result(const struct json *r)
{
	const struct json *s;

	if (r->type != JSON_OBJECT)
		return "is not an object";
	if (!json_get_type(r, "variant", JSON_STRING) || !json_get_type(r, "metric", JSON_STRING) ||
	    !json_get_type(r, "unit", JSON_STRING))
		return "lacks variant, metric or unit";
	if (!json_get_type(r, "point", JSON_OBJECT))
		return "has no point object";
	if (!json_get_type(r, "higher_is_better", JSON_BOOL))
		return "has no higher_is_better";
	s = json_get_type(r, "samples", JSON_ARRAY);
	if (!s)
		return "has no samples array";
	for (s = s->child; s; s = s->next)
		if (s->type != JSON_NUMBER && s->type != JSON_NULL)
			return "has a sample that is not a number";
	return NULL;
}

int result_file_load(struct result_file *f, const char *path, char *err, size_t len)
{
	const struct json *e, *r;
	const char *why;
	int i = 0;

	memset(f, 0, sizeof(*f));
	f->path = path;
	f->root = json_read_file(path, err, len);
	if (!f->root)
		return -1;
	e = json_get_type(f->root, "experiment", JSON_STRING);
	f->params = json_get_type(f->root, "params", JSON_OBJECT);
	f->results = json_get_type(f->root, "results", JSON_ARRAY);
	f->points = json_get_type(f->root, "points", JSON_ARRAY);
	f->shard = json_get_type(f->root, "shard", JSON_OBJECT);
	if (!e || !f->params || !f->results) {
		result_file_free(f);
		return bad(err, len, path, "no \"experiment\", \"params\" or \"results\"", -1);
	}
	f->experiment = e->text;
	for (r = f->results->child; r; r = r->next, i++)
		if ((why = check_result(r))) {
			result_file_free(f);
			return bad(err, len, path, why, i);
		}
	return 0;
}

void result_file_free(struct result_file *f)
{
	json_free(f->root);
	f->root = NULL;
}

int result_samples(const struct json *result, double **values)
{
	const struct json *s = json_get(result, "samples"), *x;
	int n = 0;

	*values = malloc((s->nr + 1) * sizeof(**values));
	if (!*values)
		abort();
	for (x = s->child; x; x = x->next)
		if (x->type == JSON_NUMBER)
			(*values)[n++] = x->num;
	return n;
}

void result_point_label(const struct result_file *f, const struct json *point,
			char *buf, size_t len)
{
	const struct json *p;

	for (p = f->points ? f->points->child : NULL; p; p = p->next)
		if (json_equal(json_get(p, "point"), point) &&
		    json_get_type(p, "label", JSON_STRING)) {
			snprintf(buf, len, "%s", json_get(p, "label")->text);
			return;
		}
	json_compact(point, false, buf, len);
}

bool result_same_cell(const struct json *a, const struct json *b)
{
	return !strcmp(json_get(a, "variant")->text, json_get(b, "variant")->text) &&
	       !strcmp(json_get(a, "metric")->text, json_get(b, "metric")->text) &&
	       json_equal(json_get(a, "point"), json_get(b, "point"));
}
