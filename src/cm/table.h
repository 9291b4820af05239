/* SPDX-License-Identifier: MIT */
/* The CM's lookup tables: an intrusive chained hash keyed by a (64-bit, 32-bit) pair, the
 * shape of every key the CM looks up (comm ID; remote comm ID and CA GUID; remote QPN and CA
 * GUID; SIDR request ID and peer address digest). Several nodes may share a key: table_find
 * returns the first, table_next the following ones, and the caller checks what the key does
 * not hold. The bucket array doubles when the nodes outnumber it. */
#ifndef UROCE_CM_TABLE_H
#define UROCE_CM_TABLE_H

#include <stdbool.h>
#include <stdint.h>

struct table_node {
	struct table_node *next;
	uint64_t a;
	uint32_t b;
	bool linked;
};

struct table {
	struct table_node **bucket;
	uint32_t nbuckets; /* a power of two, or 0 before the first insert */
	uint32_t n;
};

void table_free(struct table *t);
/* Links node under (a, b): 0, or UROCE_ENOMEM (node not linked). A linked node is moved. */
int table_insert(struct table *t, struct table_node *node, uint64_t a, uint32_t b);
/* Unlinks node if linked. */
void table_remove(struct table *t, struct table_node *node);
/* The first node under (a, b), or NULL; then the next with the same key after node. */
struct table_node *table_find(const struct table *t, uint64_t a, uint32_t b);
struct table_node *table_next(const struct table_node *node);

#endif
