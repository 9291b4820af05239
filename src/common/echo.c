/* SPDX-License-Identifier: MIT */
#include "echo.h"

#include <stdbool.h>
#include <string.h>

const char *uroce_echo(struct uroce_echo *buf, const char *text, size_t n)
{
	size_t k = 0;

	while (k < n && k < UROCE_ECHO_MAX && text[k])
		k++;
	bool cut = k < n && text[k];
	/* Not in the middle of a UTF-8 character: drop its lead and continuation bytes. */
	if (cut)
		while (k && ((unsigned char)text[k] & 0xC0) == 0x80)
			k--;
	for (size_t i = 0; i < k; i++) {
		unsigned char c = (unsigned char)text[i];
		buf->s[i] = c < 0x20 || c == 0x7F ? '?' : (char)c;
	}
	if (cut)
		memcpy(buf->s + k, "...", 3), k += 3;
	buf->s[k] = '\0';
	return buf->s;
}
