/* SPDX-License-Identifier: MIT */
/* UROCE_CC's syntax (engine.h, uroce_cc_parse): the algorithm, then key=value items, one
 * table of the parameters with their units. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/echo.h"
#include "common/error.h"
#include "engine.h"

enum unit { U_COUNT, U_RATE, U_TIME, U_BYTES, U_BOOL };

static const struct param {
	const char *key;
	size_t off;
	size_t size; /* of the field: 1, 4 or 8 bytes */
	enum unit unit;
	uint64_t max;
} params[] = {
#define P(key, field, unit, max)                                                                   \
	{key, offsetof(struct uroce_cc_cfg, field), sizeof(((struct uroce_cc_cfg *)0)->field), unit, max}
	P("ecn", ecn, U_COUNT, 2),
	P("np_off", np_off, U_BOOL, 1),
	P("cnp_dscp", cnp_dscp, U_COUNT, 63),
	P("cnp_802p_prio", cnp_prio, U_COUNT, 7),
	P("min_time_between_cnps", min_time_between_cnps_ns, U_TIME, 1000000000ull),
	P("line_rate", line_rate, U_RATE, 10000000000000ull),
	P("min_rate", min_rate, U_RATE, 10000000000000ull),
	P("ai_rate", ai_rate, U_RATE, 10000000000000ull),
	P("hai_rate", hai_rate, U_RATE, 10000000000000ull),
	P("g_shift", g_shift, U_COUNT, 16),
	P("alpha_period", alpha_period_ns, U_TIME, 1000000000ull),
	P("time_reset", time_reset_ns, U_TIME, 1000000000ull),
	P("byte_reset", byte_reset, U_BYTES, 1ull << 40),
	P("threshold", threshold, U_COUNT, 1000),
#undef P
};

static const struct {
	const char *suffix;
	uint64_t mult;
	enum unit unit;
} suffixes[] = {
	{"k", 1000, U_RATE},	  {"m", 1000000, U_RATE},   {"g", 1000000000, U_RATE},
	{"ns", 1, U_TIME},	  {"us", 1000, U_TIME},	    {"ms", 1000000, U_TIME},
	{"s", 1000000000, U_TIME}, {"k", 1000, U_BYTES},     {"m", 1000000, U_BYTES},
	{"g", 1000000000, U_BYTES},
};

static int fail(char *msg, size_t msglen, int err, const char *item, size_t len, const char *why)
{
	struct uroce_echo e;

	if (msg && msglen)
		snprintf(msg, msglen, "%s: %s", uroce_echo(&e, item, len), why);
	return err;
}

/* A decimal number with the unit's suffix, or UINT64_MAX. */
static uint64_t number(const char *s, size_t len, enum unit unit)
{
	uint64_t v = 0, mult = 1;
	size_t i = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return UINT64_MAX;
		v = v * 10 + (uint64_t)(s[i++] - '0');
	}
	if (!i)
		return UINT64_MAX;
	if (i < len) {
		size_t k;
		for (k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++)
			if (suffixes[k].unit == unit && strlen(suffixes[k].suffix) == len - i &&
			    !strncasecmp(s + i, suffixes[k].suffix, len - i))
				break;
		if (k == sizeof(suffixes) / sizeof(suffixes[0]))
			return UINT64_MAX;
		mult = suffixes[k].mult;
	}
	return v > UINT64_MAX / mult ? UINT64_MAX : v * mult;
}

static int item(const char *s, size_t len, struct uroce_cc_cfg *cfg, char *msg, size_t msglen)
{
	const char *eq = memchr(s, '=', len);

	if (!eq) {
		for (int a = 0; a < UROCE_CC_COUNT; a++)
			if (strlen(uroce_cc_algo_name(a)) == len &&
			    !strncmp(s, uroce_cc_algo_name(a), len)) {
				cfg->algo = (enum uroce_cc_algo)a;
				return 0;
			}
		return fail(msg, msglen, UROCE_EINVAL, s, len, "not an algorithm (none, dcqcn) nor key=value");
	}
	size_t klen = (size_t)(eq - s);
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		const struct param *p = &params[i];
		if (strlen(p->key) != klen || strncmp(p->key, s, klen))
			continue;
		uint64_t v = number(eq + 1, len - klen - 1, p->unit);
		if (v == UINT64_MAX || v > p->max)
			return fail(msg, msglen, UROCE_EINVAL, s, len, "value out of range or malformed");
		char *f = (char *)cfg + p->off;
		if (p->size == 1) {
			uint8_t b = (uint8_t)v;
			memcpy(f, &b, 1);
		} else if (p->size == 4) {
			uint32_t w = (uint32_t)v;
			memcpy(f, &w, 4);
		} else {
			memcpy(f, &v, 8);
		}
		return 0;
	}
	return fail(msg, msglen, UROCE_EINVAL, s, len, "unknown key (uroce(7) lists them)");
}

int uroce_cc_parse(const char *spec, struct uroce_cc_cfg *out, char *msg, size_t msglen)
{
	struct uroce_cc_cfg cfg = {0};

	for (const char *p = spec; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *s = p;
		while (n && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		int err = n ? item(s, n, &cfg, msg, msglen) : 0;
		if (err)
			return err;
		p = end ? end + 1 : p + strlen(p);
	}
	*out = cfg;
	return 0;
}

const char *uroce_cc_algo_name(int algo)
{
	static const char *const names[] = {
#define UROCE_CC_NAME(name, str) str,
		UROCE_CC_ALGOS(UROCE_CC_NAME)
#undef UROCE_CC_NAME
	};
	return algo >= 0 && algo < UROCE_CC_COUNT ? names[algo] : NULL;
}
