#ifndef CX264_H
#define CX264_H
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#if __has_include(<x264.h>)
#include <x264.h>
#else
#error "x264.h not found: install libx264's headers (Debian: apt-get install libx264-dev), or pass -Xcc -I<prefix>/include"
#endif

/// x264_encoder_open is a macro over a versioned symbol (x264_encoder_open_<build>); Swift
/// cannot call a macro, so this wraps it.
static inline x264_t *cx264_encoder_open(x264_param_t *param) {
    return x264_encoder_open(param);
}

/// x264's level table, ended by an entry with level_idc 0 (an array of unknown size, which Swift
/// does not import).
static inline const x264_level_t *cx264_levels(void) {
    return x264_levels;
}

/// Formats an x264 log message (param.pf_log receives a va_list, which Swift cannot expand).
static inline int cx264_vformat(char *buffer, size_t size, const char *format, va_list args) {
    return vsnprintf(buffer, size, format, args);
}

#endif
