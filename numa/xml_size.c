// Sizing an hwloc XML topology before hwloc loads it, as synthetic descriptions are sized: hwloc
// parses the whole file and builds every object with four bitmaps as wide as the machine, so a
// file of thousands of NUMA nodes or hundreds of thousands of PUs costs it seconds to minutes and
// gigabytes. A pre-scan of the bytes is enough to refuse those at once, and cheap (one memchr
// pass): no XML parser of our own to keep in step with hwloc's two.
//
// It counts <object> elements by their type attribute as hwloc writes it (type="PU",
// type="NUMANode"; hwloc reads types case-insensitively and by prefix). What it cannot read
// counts against both caps: a type spelled with entities. Comments and CDATA are not skipped, so
// they can only over-count. A file larger than NT_TOPO_MAX_XML_BYTES is refused before it is
// read: a real 4096-PU machine (64 nodes, caches) is about 2.3 MB of XML, while the largest
// machine the caps allow written in full (65536 PUs, bitmaps of 2048 words) is about 150 MB and
// takes hwloc 4 s and 1 GB; the cap keeps the read, the scan and hwloc's parse bounded.
// hwloc reads the file again after the scan: this guards against mistakes, not against a file
// rewritten in between.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "nt_core.h"
#include "nt_numa.h"

typedef struct xml_size {
    uint64_t numa, pus;
} xml_size;

static bool xml_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Count one object from the value of its type attribute (n bytes at v).
static void count_type(const char *v, size_t n, xml_size *z)
{
    bool unknown = memchr(v, '&', n) != NULL; // an entity may spell any type
    if (unknown || (n >= 2 && strncasecmp(v, "pu", 2) == 0))
        z->pus++;
    if (unknown || (n >= 2 && (strncasecmp(v, "nu", 2) == 0 || strncasecmp(v, "no", 2) == 0)))
        z->numa++;
}

// The attributes of an <object start tag from q to its '>': find type="..." and count it.
static void count_object(const char *q, const char *end, xml_size *z)
{
    while (q < end && *q != '>') {
        if (*q == '"' || *q == '\'') { // skip another attribute's value: it may hold "type"
            const char *close = memchr(q + 1, *q, (size_t)(end - q - 1));
            q = close ? close + 1 : end;
            continue;
        }
        if (!xml_space(q[-1]) || end - q < 5 || memcmp(q, "type", 4) != 0) {
            q++;
            continue;
        }
        const char *v = q + 4;
        while (v < end && xml_space(*v))
            v++;
        if (v >= end || *v != '=') {
            q = v;
            continue;
        }
        for (v++; v < end && xml_space(*v); v++)
            ;
        const char *close = v < end && (*v == '"' || *v == '\'')
                                ? memchr(v + 1, *v, (size_t)(end - v - 1)) : NULL;
        if (close)
            count_type(v + 1, (size_t)(close - v - 1), z);
        return;
    }
}

static void count_objects(const char *s, size_t n, xml_size *z)
{
    const char *end = s + n;
    for (const char *p = s; (p = memchr(p, '<', (size_t)(end - p))) != NULL; p++)
        if (end - p > 7 && memcmp(p + 1, "object", 6) == 0 &&
            (xml_space(p[7]) || p[7] == '>' || p[7] == '/'))
            count_object(p + 7, end, z);
}

nt_status nt_topo_xml_check_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NT_OK; // hwloc reports the file it cannot read
    struct stat sb;
    nt_status st = NT_OK;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode))
        st = nt_fail(NT_EINVAL, "synthetic: \"%s\" is not a regular file", path);
    else if ((uint64_t)sb.st_size > NT_TOPO_MAX_XML_BYTES)
        st = nt_fail(NT_ERANGE, "synthetic: \"%s\" is %.1f MiB; the limit for an XML topology is "
                     "%d MiB", path, (double)sb.st_size / (1 << 20), NT_TOPO_MAX_XML_BYTES >> 20);
    size_t n = st == NT_OK ? (size_t)sb.st_size : 0;
    char *buf = st == NT_OK ? malloc(n + 1) : NULL;
    if (st == NT_OK && !buf)
        st = nt_fail(NT_ENOMEM, "synthetic: out of memory reading \"%s\"", path);
    if (st == NT_OK) {
        n = fread(buf, 1, n, f); // a file that shrank meanwhile is scanned as it is now
        xml_size z = {0, 0};
        count_objects(buf, n, &z);
        if (z.numa > NT_TOPO_MAX_DOMAINS || z.pus > NT_TOPO_MAX_PUS)
            st = nt_fail(NT_ERANGE,
                         "synthetic: \"%s\" describes %llu NUMA node%s and %llu processing "
                         "units; the limits are %d nodes and %d processing units",
                         path, (unsigned long long)z.numa, z.numa == 1 ? "" : "s",
                         (unsigned long long)z.pus, NT_TOPO_MAX_DOMAINS, NT_TOPO_MAX_PUS);
    }
    free(buf);
    fclose(f);
    return st;
}
