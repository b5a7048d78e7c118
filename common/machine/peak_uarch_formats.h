/* The x86 table's number-format rates (peak_uarch_formats.c). */
#ifndef PEAK_UARCH_FORMATS_H
#define PEAK_UARCH_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

struct peak_uarch;

/* Set u's format rates and formats_source from the entry of u->name; all 0 (and NULL)
 * when the table has none for it. */
void peak_uarch_formats_fill(struct peak_uarch *u);
/* The i-th format row's entry name and source; false past the last (tests). */
bool peak_uarch_formats_entry_at(size_t i, const char **name, const char **source);

#endif
