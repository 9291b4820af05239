/* SPDX-License-Identifier: MIT */
#include "outbuf.h"

#include <arpa/inet.h>

static const char hex_digits[] = "0123456789abcdef";

/* uroce-dump writes from one thread: stdio's locking is not needed. */
void ob_flush(struct outbuf *ob)
{
	if (ob->len)
		fwrite_unlocked(ob->buf, 1, ob->len, ob->out);
	ob->len = 0;
}

void ob_write_long(struct outbuf *ob, const char *s, size_t n)
{
	ob_flush(ob);
	fwrite_unlocked(s, 1, n, ob->out);
}

/* Two digits at a time: half the divisions of one digit at a time. */
static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Ten to the power of the index, for counting digits by comparison: the counting does not wait
 * for a chain of divisions. */
static const uint64_t powers_of_10[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull, 10000000000000000000ull,
};

/* v in decimal with at least `width` digits, zero-padded. */
static void dec_digits(struct outbuf *ob, uint64_t v, unsigned width)
{
	unsigned n = 1;
	char *start, *end;

	while (n < 20 && v >= powers_of_10[n])
		n++;
	if (n < width)
		n = width < 32 ? width : 32;
	/* written in place from the last digit, two at a time */
	start = ob_room(ob, n);
	end = start + n;
	ob->len += n;
	for (; v >= 100; v /= 100) {
		end -= 2;
		memcpy(end, &digit_pairs[2 * (v % 100)], 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, &digit_pairs[2 * v], 2);
	} else {
		*--end = (char)('0' + v);
	}
	while (end > start) /* the zeros of the padding */
		*--end = '0';
}

void ob_dec(struct outbuf *ob, uint64_t v)
{
	dec_digits(ob, v, 1);
}

void ob_dec_pad(struct outbuf *ob, uint64_t v, unsigned width)
{
	dec_digits(ob, v, width);
}

void ob_hex(struct outbuf *ob, uint64_t v, unsigned width)
{
	unsigned n = 1;
	char *p;

	while (n < 16 && v >> (4 * n))
		n++;
	if (n < width)
		n = width < 32 ? width : 32;
	p = ob_room(ob, n);
	for (unsigned i = n; i > 0; i--, v >>= 4)
		p[i - 1] = hex_digits[v & 0xF]; /* zeros once v is used up */
	ob->len += n;
}

void ob_hex_bytes(struct outbuf *ob, const uint8_t *p, size_t len)
{
	while (len) {
		/* in pieces, since a payload can be longer than the buffer */
		size_t n = len < OUTBUF_SIZE / 2 ? len : OUTBUF_SIZE / 2;
		char *q = ob_room(ob, 2 * n);

		for (size_t i = 0; i < n; i++) {
			q[2 * i] = hex_digits[p[i] >> 4];
			q[2 * i + 1] = hex_digits[p[i] & 0xF];
		}
		ob->len += 2 * n;
		p += n;
		len -= n;
	}
}

/* One byte of an IPv4 address in decimal at p; returns the end. */
static char *byte_digits(char *p, unsigned b)
{
	if (b >= 100) {
		*p++ = (char)('0' + b / 100);
		b %= 100;
	} else if (b < 10) {
		*p = (char)('0' + b);
		return p + 1;
	}
	memcpy(p, &digit_pairs[2 * b], 2);
	return p + 2;
}

void ob_ipv4(struct outbuf *ob, const uint8_t a[4])
{
	char *start = ob_room(ob, 15), *p = start;

	for (unsigned i = 0; i < 4; i++) {
		if (i)
			*p++ = '.';
		p = byte_digits(p, a[i]);
	}
	ob->len += (size_t)(p - start);
}

/* IPv6 text is rare in RoCE traffic next to IPv4: glibc's inet_ntop gives the RFC 5952 form
 * (checked against tshark on ::a.b.c.d, ::ffff:a.b.c.d and tied zero runs). */
void ob_ipv6(struct outbuf *ob, const uint8_t a[16])
{
	char *p = ob_room(ob, INET6_ADDRSTRLEN);

	if (inet_ntop(AF_INET6, a, p, INET6_ADDRSTRLEN))
		ob->len += strlen(p);
}
