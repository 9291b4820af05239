/* SPDX-License-Identifier: MIT */
#include "table.h"

#include <stdlib.h>

#include "common/error.h"

/* splitmix64's finaliser: every key bit moves every hash bit, so that comm IDs that differ
 * in a few low bits and GUIDs that share their OUI still spread over the buckets. */
static uint64_t mix(uint64_t a, uint32_t b)
{
	uint64_t x = a ^ ((uint64_t)b << 32 | b) ^ 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static struct table_node **slot(const struct table *t, uint64_t a, uint32_t b)
{
	return &t->bucket[mix(a, b) & (t->nbuckets - 1)];
}

static int grow(struct table *t)
{
	uint32_t n = t->nbuckets ? 2 * t->nbuckets : 64;
	struct table_node **old = t->bucket;
	uint32_t oldn = t->nbuckets;

	t->bucket = calloc(n, sizeof(*t->bucket));
	if (!t->bucket) {
		t->bucket = old;
		return UROCE_ENOMEM;
	}
	t->nbuckets = n;
	for (uint32_t i = 0; i < oldn; i++) {
		struct table_node *node = old[i];
		while (node) {
			struct table_node *next = node->next;
			struct table_node **s = slot(t, node->a, node->b);
			node->next = *s;
			*s = node;
			node = next;
		}
	}
	free(old);
	return 0;
}

void table_free(struct table *t)
{
	free(t->bucket);
	t->bucket = NULL;
	t->nbuckets = t->n = 0;
}

int table_insert(struct table *t, struct table_node *node, uint64_t a, uint32_t b)
{
	if (node->linked)
		table_remove(t, node);
	if (t->n >= t->nbuckets && grow(t) && !t->nbuckets)
		return UROCE_ENOMEM;
	/* A failed growth with buckets left only lengthens the chains. */
	struct table_node **s = slot(t, a, b);
	node->a = a;
	node->b = b;
	node->next = *s;
	node->linked = true;
	*s = node;
	t->n++;
	return 0;
}

void table_remove(struct table *t, struct table_node *node)
{
	if (!node->linked)
		return;
	for (struct table_node **p = slot(t, node->a, node->b); *p; p = &(*p)->next) {
		if (*p == node) {
			*p = node->next;
			node->linked = false;
			node->next = NULL;
			t->n--;
			return;
		}
	}
}

struct table_node *table_find(const struct table *t, uint64_t a, uint32_t b)
{
	if (!t->nbuckets)
		return NULL;
	for (struct table_node *n = *slot(t, a, b); n; n = n->next)
		if (n->a == a && n->b == b)
			return n;
	return NULL;
}

struct table_node *table_next(const struct table_node *node)
{
	for (struct table_node *n = node->next; n; n = n->next)
		if (n->a == node->a && n->b == node->b)
			return n;
	return NULL;
}
