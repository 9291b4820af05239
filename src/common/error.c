/* SPDX-License-Identifier: MIT */
#include "error.h"

#include <stddef.h>

struct err_entry {
	int code;
	const char *name;
	const char *msg;
};

static const struct err_entry err_table[] = {
#define UROCE_ERRNO_ROW(name, msg) {UROCE_E##name, "UROCE_E" #name, msg},
	UROCE_ERRNO_MAP(UROCE_ERRNO_ROW)
#undef UROCE_ERRNO_ROW
};

static const struct err_entry *err_find(int err)
{
	for (size_t i = 0; i < sizeof(err_table) / sizeof(err_table[0]); i++)
		if (err_table[i].code == err)
			return &err_table[i];
	return NULL;
}

const char *uroce_strerror(int err)
{
	const struct err_entry *e = err_find(err);
	if (err == 0)
		return "success";
	return e ? e->msg : "unknown error";
}

const char *uroce_err_name(int err)
{
	const struct err_entry *e = err_find(err);
	if (err == 0)
		return "UROCE_OK";
	return e ? e->name : "UROCE_E?";
}
