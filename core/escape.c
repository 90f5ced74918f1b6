// Escaping of text that may echo user input (argv, DIST specs, file contents) into messages, so
// that binary garbage reaches a terminal as \xNN and never as raw control bytes.
#include "nt_core.h"  // numatile/error.h declares nt_escape

// Length of the valid UTF-8 sequence starting at s (2..4), or 0 if s does not start one; valid
// multi-byte text (file names, locales) stays readable.
static size_t utf8_len(const unsigned char *s)
{
    size_t n;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    else
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

size_t nt_escape(const char *in, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)in;
    size_t o = 0;
    if (cap == 0)
        return 0;
    while (*s) {
        size_t n = *s >= 0x80 ? utf8_len(s) : (*s >= 0x20 && *s != 0x7f);
        if (n > 0) {
            if (o + n >= cap)
                break;
            for (size_t i = 0; i < n; i++)
                out[o++] = (char)s[i];
            s += n;
            continue;
        }
        if (o + 4 >= cap)
            break;
        out[o++] = '\\';
        out[o++] = 'x';
        out[o++] = hex[*s >> 4];
        out[o++] = hex[*s & 15];
        s++;
    }
    out[o] = '\0';
    return o;
}
