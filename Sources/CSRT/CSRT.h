#ifndef CSRT_H
#define CSRT_H
#include <stdint.h>
#include <sys/socket.h>
#include <syslog.h>
#if __has_include(<srt.h>)
#include <srt.h>
#include <access_control.h>
#elif __has_include(<srt/srt.h>)
#include <srt/srt.h>
#include <srt/access_control.h>
#else
#error "srt.h not found: install libsrt's headers (Debian: apt-get install libsrt-openssl-dev), or pass -Xcc -I<prefix>/include"
#endif

/// Discards a libsrt log line: a library prints nothing of its own (errors reach the caller
/// as values).
static inline void csrt_discard_log(void *opaque, int level, const char *file, int line, const char *area,
                                    const char *message) {
    (void)opaque; (void)level; (void)file; (void)line; (void)area; (void)message;
}

/// Silences libsrt's logging (it writes to stderr by default): only critical lines are
/// formatted, and those go nowhere.
static inline void csrt_silence_logging(void) {
    srt_setloglevel(LOG_CRIT);
    srt_setloghandler(NULL, csrt_discard_log);
}

/// SRT_INVALID_SOCK and SRT_ERROR are macros over casts, which Swift does not import.
static inline SRTSOCKET csrt_invalid_socket(void) { return SRT_INVALID_SOCK; }

#endif
