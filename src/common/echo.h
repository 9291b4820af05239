/* SPDX-License-Identifier: MIT */
/* How a message quotes text that came from outside (an environment variable, a command-line
 * argument, a configuration item): at most UROCE_ECHO_MAX bytes, cut at a character
 * boundary and followed by "..." when longer, control characters shown as '?'. So that a
 * 5000-character UROCE_IP neither buries the message that quotes it nor pushes the reason
 * after it out of a fixed buffer, and a value cannot write escape sequences to a terminal.
 * Every message that echoes such text goes through uroce_echo. */
#ifndef UROCE_COMMON_ECHO_H
#define UROCE_COMMON_ECHO_H

#include <stddef.h>

#define UROCE_ECHO_MAX 64

struct uroce_echo {
	char s[UROCE_ECHO_MAX + sizeof("...")];
};

/* The first n bytes of text (fewer if a NUL comes first; n = (size_t)-1 for a C string) as
 * a message shows them, in buf->s; returns buf->s. */
const char *uroce_echo(struct uroce_echo *buf, const char *text, size_t n);

#endif
