/*
 * The strict JSON reader: every kind of value, escapes, the accessors,
 * and malformed inputs, each of which must be refused with a located
 * one-line error rather than read as something else.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include <mmlab/json_read.h>

static struct json *parse(const char *text, char *err)
{
	return json_parse(text, strlen(text), err, 200);
}

static void test_values(void)
{
	const char *doc = "{\"a\": [1, -2.5e3, 0, true, false, null],\n"
			  " \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",\n"
			  " \"o\": {\"n\": 18446744073709551615}, \"e\": {}, \"z\": []}";
	char err[200] = "", buf[200];
	struct json *j = parse(doc, err);
	const struct json *a, *s;

	ok(j && j->type == JSON_OBJECT && j->nr == 5, "an object of 5 members (%s)", err);
	if (!j)
		return;
	a = json_get_type(j, "a", JSON_ARRAY);
	ok(a && a->nr == 6 && a->child->num == 1 && a->child->next->num == -2500,
	   "array of numbers, exponent");
	ok(a && a->child->next->next->next->type == JSON_BOOL && a->child->next->next->next->num == 1,
	   "true");
	s = json_get_type(j, "s", JSON_STRING);
	ok(s && !strcmp(s->text, "q\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80"),
	   "escapes decoded, \\u to UTF-8, surrogate pair to one code point");
	ok(!strcmp(json_get(json_get(j, "o"), "n")->text, "18446744073709551615"),
	   "a number keeps its text (a 64-bit seed survives)");
	ok(json_get(j, "missing") == NULL && json_get_type(j, "a", JSON_OBJECT) == NULL,
	   "missing key and wrong type: NULL");
	json_compact(json_get(j, "o"), false, buf, sizeof(buf));
	ok(!strcmp(buf, "{\"n\":18446744073709551615}"), "compact text: %s", buf);
	json_compact(j, true, buf, sizeof(buf));
	ok(!strncmp(buf, "{\"a\": [1, -2.5e3, 0, true, false, null], \"s\": ", 44), "spaced text: %s", buf);
	json_free(j);
}

static void test_equal(void)
{
	char err[200];
	struct json *a = parse("{\"n\": 1, \"v\": [1, \"x\"]}", err);
	struct json *b = parse("{\"n\":1,\"v\":[1.0,\"x\"]}", err);
	struct json *c = parse("{\"n\": 1, \"v\": [1, \"y\"]}", err);
	struct json *d = parse("{\"v\": [1, \"x\"], \"n\": 1}", err);

	ok(json_equal(a, b), "equal: same values, other spelling");
	ok(!json_equal(a, c), "not equal: one string differs");
	ok(!json_equal(a, d), "not equal: members in another order");
	json_free(a);
	json_free(b);
	json_free(c);
	json_free(d);
}

static void test_malformed(void)
{
	static const char *const bad[] = {
		"", "   ", "{", "[1, 2", "{\"a\" 1}", "{\"a\": 1,}", "[1,]", "[,1]", "{a: 1}",
		"{'a': 1}", "01", "1.", ".5", "-", "1e", "+1", "0x10", "NaN", "Infinity", "tru",
		"nul", "\"abc", "\"a\\x\"", "\"a\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
		"\"tab\there\"", "{\"a\": 1, \"a\": 2}", "[1] [2]", "{} x", "[1 2]", "// c\n1",
	};
	char err[200], deep[200];
	int i, refused = 0;

	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		struct json *j;

		err[0] = '\0';
		j = parse(bad[i], err);
		if (!j && !strncmp(err, "line ", 5) && !strchr(err, '\n'))
			refused++;
		else
			diag("accepted or no located error: '%s' (%s)", bad[i], err);
		json_free(j);
	}
	ok(refused == i, "%d of %d malformed texts refused with a located error", refused, i);
	memset(deep, '[', 100);
	deep[100] = '\0';
	ok(!parse(deep, err) && strstr(err, "deeper"), "nesting beyond %d refused (%s)",
	   JSON_MAX_DEPTH, err);
	ok(!json_parse("1\0 2", 4, err, sizeof(err)), "an embedded NUL byte refused");
	ok(!json_read_file("/nonexistent/x.json", err, sizeof(err)) && strstr(err, "cannot read"),
	   "a missing file: %s", err);
}

int main(void)
{
	plan_no_plan();
	test_values();
	test_equal();
	test_malformed();
	return done_testing();
}
