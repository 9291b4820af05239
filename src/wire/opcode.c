/* SPDX-License-Identifier: MIT */
#include "opcode.h"

#include <stddef.h>

const uint8_t uroce_exthdr_size[UROCE_EHI_COUNT] = {
#define EH_SIZE(id, size, name, desc) [UROCE_EHI_##id] = size,
	UROCE_EXTHDR_MAP(EH_SIZE)
#undef EH_SIZE
};

const char *const uroce_exthdr_name[UROCE_EHI_COUNT] = {
#define EH_NAME(id, size, name, desc) [UROCE_EHI_##id] = name,
	UROCE_EXTHDR_MAP(EH_NAME)
#undef EH_NAME
};

static const struct uroce_opcode_info opcode_table[256] = {
#define OP_ROW(tp, low5, nm, k, eh, fl)                                               \
	[UROCE_TP_##tp | (low5)] = {.name = #tp "_" #nm,                              \
				    .op_name = #nm,                                   \
				    .headers = (eh),                                  \
				    .flags = (fl),                                    \
				    .kind = UROCE_OPK_##k},
	UROCE_OPCODE_MAP(OP_ROW)
#undef OP_ROW
};

const struct uroce_opcode_info *uroce_opcode_info(uint8_t opcode) { return &opcode_table[opcode]; }

size_t uroce_exthdr_len(uint16_t headers)
{
	size_t len = 0;
	for (unsigned i = 0; i < UROCE_EHI_COUNT; i++)
		if (headers & (1u << i))
			len += uroce_exthdr_size[i];
	return len;
}

const char *uroce_transport_name(enum uroce_transport tp)
{
	switch (tp) {
#define TP_CASE(t, base, name) \
	case UROCE_TP_##t:     \
		return name;
		UROCE_TRANSPORT_MAP(TP_CASE)
#undef TP_CASE
	}
	return "?";
}

const char *uroce_opkind_name(enum uroce_opkind kind)
{
	static const char *const names[] = {
		[UROCE_OPK_NONE] = "none",
#define OPK_NAME(k, name) [UROCE_OPK_##k] = name,
		UROCE_OPKIND_MAP(OPK_NAME)
#undef OPK_NAME
	};
	return (size_t)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}
