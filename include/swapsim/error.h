/*
 * swapsim/error.h - error codes.
 *
 * Every fallible libswapsim call returns an int: 0 on success, or one of the
 * negative SWS_E* codes below. The list is generated from one X-macro so the
 * codes, their names and their messages never drift apart.
 */
#ifndef SWAPSIM_ERROR_H
#define SWAPSIM_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, number, message) */
#define SWS_ERROR_LIST(X)                                                              \
	X(EINVAL, 1, "invalid argument or configuration")                                  \
	X(EVERSION, 2, "unsupported structure version")                                    \
	X(ENOMEM, 3, "memory allocation failed")                                           \
	X(ENOSPC, 4, "no free swap slots for this order (caller may fall back)")           \
	X(ENODEV, 5, "no swap device of that type")                                        \
	X(ETOOMANY, 6, "too many swap devices (MAX_SWAPFILES reached)")                    \
	X(EBADENTRY, 7, "swap entry out of range, header or bad slot")                     \
	X(ENOENT, 8, "swap slot is not allocated")                                         \
	X(EEXIST, 9, "swap slot already has a folio in the swap cache")                    \
	X(EBUSY, 10, "busy: slots still in use, or slots of one request in mixed states")  \
	X(EFREE, 11, "swap slot is already free (double free)")                            \
	X(ERANGE, 12, "swap count would go below zero")                                    \
	X(ENOTCACHED, 13, "swap slot holds no folio in the swap cache")                    \
	X(EMISMATCH, 14, "swap cache holds a different folio for that slot")               \
	X(EIO, 15, "I/O error on the device's backing file")                               \
	X(ENOBACKING, 16, "device has no backing store for page I/O")                      \
	X(ECORRUPT, 17, "internal invariant violated")                                     \
	X(ENOCPU, 18, "too many attached CPUs")                                           \
	X(EOVERFLOW, 19, "swap count would exceed SWS_SWAP_COUNT_MAX")                     \
	X(EFORMAT, 20, "malformed trace input")                                            \
	X(EOPNOTSUPP, 21, "not supported in this configuration (xswap needs zswap and swap table phase IV)") \
	X(EFILEEXIST, 22, "the backing file exists and reusing it was not asked for")            \
	X(EKILLED, 23, "the task was killed by the OOM killer")                                  \
	X(EAGAIN, 24, "not now: the slot's state asks for the other path")

enum sws_error {
	SWS_OK = 0,
#define SWS__ERR_ENUM(name, num, msg) SWS_##name = -(num),
	SWS_ERROR_LIST(SWS__ERR_ENUM)
#undef SWS__ERR_ENUM
};

/** @return a static, human-readable message for an SWS_* code (never NULL). */
const char *sws_strerror(int err);
/** @return the symbolic name ("SWS_ENOSPC") of an SWS_* code (never NULL). */
const char *sws_error_name(int err);

#ifdef __cplusplus
}
#endif
#endif
