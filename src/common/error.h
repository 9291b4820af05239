/* SPDX-License-Identifier: MIT */
/* uroce's internal error codes: negative values generated with their names and messages from
 * one list (the libuv habit), so codes, names and texts cannot drift apart. */
#ifndef UROCE_COMMON_ERROR_H
#define UROCE_COMMON_ERROR_H

#define UROCE_ERRNO_MAP(X)                                                        \
	X(TRUNC, "truncated: the buffer ends inside a header")                    \
	X(BADVER, "unsupported version field")                                    \
	X(BADLEN, "a length field disagrees with the packet")                     \
	X(BADOPCODE, "opcode not valid for its transport")                        \
	X(NOTIB, "not an InfiniBand/RoCE packet")                                 \
	X(NOSPACE, "the output buffer is too small")                              \
	X(INVAL, "invalid argument")                                              \
	X(NOMEM, "out of memory")                                                 \
	X(IO, "input/output error")                                               \
	X(FORMAT, "unknown or unsupported file format")                           \
	X(BUSY, "the object is still in use")                                     \
	X(FULL, "the queue is full")                                              \
	X(NOENT, "no such address or object")                                     \
	X(AGAIN, "not ready yet: try again later")                                \
	X(PERM, "not permitted: a capability is missing")

enum uroce_errno {
	UROCE_OK = 0,
#define UROCE_ERRNO_ENUM(name, msg) UROCE_E##name,
	UROCE_ERRNO_FIRST_ = -100,
	UROCE_ERRNO_MAP(UROCE_ERRNO_ENUM)
#undef UROCE_ERRNO_ENUM
};

/* The message for a UROCE_E* code (or "success" for 0, "unknown error" otherwise). */
const char *uroce_strerror(int err);
/* The symbolic name ("UROCE_ETRUNC") of a code. */
const char *uroce_err_name(int err);

#endif
