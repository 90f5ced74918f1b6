/**
 * \file numatile/error.h
 * \brief Status codes and error messages shared by every numatile module.
 *
 * Every fallible numatile function returns an ::nt_status: 0 (::NT_OK) on success, a negative
 * code otherwise. Results come back through out-parameters, which are left untouched on
 * failure. After a failure, nt_last_error() returns a message naming the offending argument;
 * the message is thread-local and stays valid until the next failing call on the same thread.
 * Library code never prints, never exits and never aborts on user input. Messages echo user
 * input escaped: control bytes, DEL and bytes outside valid UTF-8 appear as \\xNN.
 *
 * Threads: every function here may be called from several threads at once; the last-error
 * message is per thread.
 */
#ifndef NUMATILE_ERROR_H
#define NUMATILE_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Marks an old name kept for one release after a rename (listed in NEWS.md): a use
 *         compiles, with a warning naming the new one. */
#if defined(__GNUC__) || defined(__clang__)
#define NT_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define NT_DEPRECATED(msg)
#endif

/** \brief Result of a fallible numatile call. */
typedef enum nt_status {
    NT_OK = 0,       /**< success */
    NT_EINVAL = -1,  /**< an argument is invalid (NULL, out of range, malformed) */
    NT_ENOMEM = -2,  /**< memory could not be allocated */
    NT_ERANGE = -3,  /**< a size or index overflows or is out of bounds */
    NT_ENOTSUP = -4, /**< the operation is not supported here (e.g. allocation on a synthetic
                          topology, binding to a domain without cpus) */
    NT_ESYS = -5,    /**< a system call failed; the message carries errno's text */
    NT_EIO = -6,     /**< a file could not be read or written */
    NT_ENOSPACE = -7 /**< the request needs more memory than the machine can give (checked
                          before allocating: free memory of the nodes, RLIMIT_AS) */
} nt_status;

/**
 * \brief Short, static description of a status code.
 * @param[in] code any ::nt_status value (unknown values give "unknown status").
 * @return a static string; never NULL.
 */
const char *nt_strerror(int code);

/**
 * \brief Message of the last failure on the calling thread.
 * @return a thread-local string naming the bad argument, or "" if nothing failed yet.
 *         Valid until the next failing numatile call on this thread.
 */
const char *nt_last_error(void);

/**
 * \brief Copy text for a message, with non-printable bytes written as \\xNN.
 *
 * Control bytes (newline included), DEL and bytes that are not part of valid UTF-8 become the
 * four characters \\xNN (lower-case hex); everything else is copied. The output is always
 * NUL-terminated and is truncated before a whole character when it would not fit. Every
 * message behind nt_last_error() already went through it; front ends use it when they echo
 * user input themselves. Safe to call from several threads at once.
 * @param[in] in NUL-terminated text (not NULL).
 * @param[out] out buffer of cap bytes.
 * @param[in] cap size of out; 0 writes nothing.
 * @return the length written (excluding the NUL).
 */
size_t nt_escape(const char *in, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
