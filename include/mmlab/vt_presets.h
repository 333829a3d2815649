/*
 * The simulated machines the runner offers (vt_presets.c): --machine's
 * names and files, `mmlab machines`, `mmlab calibrate`.
 */
#ifndef MMLAB_VT_PRESETS_H
#define MMLAB_VT_PRESETS_H

#include <stddef.h>
#include <stdio.h>

struct vt_machine;

/* --machine NAME|FILE into @m: 0, or -1 with one line in @err. */
int lab_vt_resolve(const char *text, struct vt_machine *m, char *err, size_t len);
/* "host, e5-2690v3-2s, ..., or a machine file": what --machine accepts. */
void lab_vt_describe_valid(char *buf, size_t len);
/* `mmlab machines`: one line per machine; 0, or 1 if a preset is broken. */
int lab_machines(FILE *out, FILE *err);
/* `mmlab calibrate`: host-model's measurements, as a machine file on @out. */
int lab_calibrate(FILE *out, FILE *err);

#endif
