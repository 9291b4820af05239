/* SPDX-License-Identifier: MIT */
/* Text output built in memory: the one-line and -T fields modes print a packet by appending
 * its pieces here with the small formatters below; the text goes to stdio with one fwrite per
 * buffer, which costs a fraction of one fprintf per field (fprintf parses its format string on
 * every call). Each formatter prints exactly what the printf conversion named beside it does. */
#ifndef UROCE_DUMP_OUTBUF_H
#define UROCE_DUMP_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Many lines; longer output (a payload as hex) goes out in several writes. */
#define OUTBUF_SIZE 4096

struct outbuf {
	FILE *out;
	size_t len;
	char buf[OUTBUF_SIZE];
};

static inline void ob_init(struct outbuf *ob, FILE *out)
{
	ob->out = out;
	ob->len = 0;
}

/* Writes what was built to the FILE; a write error stays in ferror(out), as with fprintf. */
void ob_flush(struct outbuf *ob);

/* Room for n more bytes (n <= OUTBUF_SIZE) at the end of the text, flushing first if needed.
 * The caller writes there, then adds what it wrote to ob->len. */
static inline char *ob_room(struct outbuf *ob, size_t n)
{
	if (OUTBUF_SIZE - ob->len < n)
		ob_flush(ob);
	return ob->buf + ob->len;
}

static inline void ob_char(struct outbuf *ob, char c)
{
	*ob_room(ob, 1) = c;
	ob->len++;
}

/* Writes a text longer than the buffer. */
void ob_write_long(struct outbuf *ob, const char *s, size_t n);

/* fwrite. Inline, as is ob_str below, so that a string literal's length is known at compile
 * time and its copy takes a few moves rather than a call. */
static inline void ob_write(struct outbuf *ob, const char *s, size_t n)
{
	if (n > OUTBUF_SIZE) {
		ob_write_long(ob, s, n);
		return;
	}
	memcpy(ob_room(ob, n), s, n);
	ob->len += n;
}

/* fputs */
static inline void ob_str(struct outbuf *ob, const char *s)
{
	ob_write(ob, s, strlen(s));
}

void ob_dec(struct outbuf *ob, uint64_t v);                  /* "%" PRIu64 */
void ob_dec_pad(struct outbuf *ob, uint64_t v, unsigned width); /* "%0*" PRIu64, width <= 32 */
void ob_hex(struct outbuf *ob, uint64_t v, unsigned width);  /* "%0*" PRIx64, width <= 32 */
void ob_hex_bytes(struct outbuf *ob, const uint8_t *p, size_t len); /* "%02x" per byte */
void ob_ipv4(struct outbuf *ob, const uint8_t a[4]);         /* inet_ntop(AF_INET) */
void ob_ipv6(struct outbuf *ob, const uint8_t a[16]);        /* inet_ntop(AF_INET6) */

#endif
