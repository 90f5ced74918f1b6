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
    uint64_t numa, pus, objects;
    // The first object with some but not all of its four sets: hwloc 2.9 dereferences them
    // unchecked (a NUMANode without complete_nodeset crashes it in hwloc_bitmap_or).
    bool bad_sets;
    uint64_t bad_index;
    const char *bad_type, *bad_what;
    int bad_type_len;
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

static const char *const set_names[4] = {"cpuset", "complete_cpuset", "nodeset",
                                         "complete_nodeset"};

// The index in set_names of the attribute name (n bytes), else -1.
static int set_attribute(const char *name, size_t n)
{
    for (int k = 0; k < 4; k++)
        if (strlen(set_names[k]) == n && memcmp(name, set_names[k], n) == 0)
            return k;
    return -1;
}

// Notes the first object that carries some of the four sets but not all.
static void check_sets(unsigned sets, const char *type, size_t type_len, xml_size *z)
{
    if (!sets || sets == 15 || z->bad_sets)
        return;
    z->bad_sets = true;
    z->bad_index = z->objects;
    z->bad_type = type ? type : "?";
    z->bad_type_len = type ? (int)(type_len < 32 ? type_len : 32) : 1;
    for (int k = 0; k < 4; k++)
        if (!(sets & (1u << k))) {
            z->bad_what = set_names[k];
            break;
        }
}

// The attributes of an <object start tag from q to its '>': count its type, and check which
// of the four sets it carries. Values are skipped whole: they may hold "type".
static void count_object(const char *q, const char *end, xml_size *z)
{
    const char *type = NULL;
    size_t type_len = 0;
    unsigned sets = 0;
    z->objects++;
    while (q < end && *q != '>') {
        if (xml_space(*q) || *q == '/') {
            q++;
            continue;
        }
        const char *name = q;
        while (q < end && !xml_space(*q) && *q != '=' && *q != '>')
            q++;
        size_t nlen = (size_t)(q - name);
        while (q < end && xml_space(*q))
            q++;
        if (q >= end || *q != '=')
            continue;
        for (q++; q < end && xml_space(*q); q++)
            ;
        if (q >= end || (*q != '"' && *q != '\''))
            continue;
        const char *close = memchr(q + 1, *q, (size_t)(end - q - 1));
        if (!close)
            break;
        int k = set_attribute(name, nlen);
        if (k >= 0)
            sets |= 1u << k;
        if (nlen == 4 && memcmp(name, "type", 4) == 0 && !type) {
            type = q + 1;
            type_len = (size_t)(close - q - 1);
        }
        q = close + 1;
    }
    if (type)
        count_type(type, type_len, z);
    check_sets(sets, type, type_len, z);
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
    // The byte cap first, with the wording of the other topology limits; nt_read_file() then
    // refuses what is not a regular file (a FIFO would block hwloc's reader forever).
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (uint64_t)sb.st_size > NT_TOPO_MAX_XML_BYTES)
        return nt_fail(NT_ERANGE, "synthetic: \"%s\" is %.1f MiB; the limit for an XML topology "
                       "is %d MiB", path, (double)sb.st_size / (1 << 20),
                       NT_TOPO_MAX_XML_BYTES >> 20);
    char *buf;
    size_t n;
    nt_status st = nt_read_file(path, NT_TOPO_MAX_XML_BYTES, "synthetic", &buf, &n);
    if (st == NT_EIO)
        return NT_OK; // hwloc reports the file it cannot read, as it always has
    if (st != NT_OK)
        return st;
    xml_size z = {0};
    count_objects(buf, n, &z);
    if (z.numa > NT_TOPO_MAX_DOMAINS || z.pus > NT_TOPO_MAX_PUS)
        st = nt_fail(NT_ERANGE,
                     "synthetic: \"%s\" describes %llu NUMA node%s and %llu processing "
                     "units; the limits are %d nodes and %d processing units",
                     path, (unsigned long long)z.numa, z.numa == 1 ? "" : "s",
                     (unsigned long long)z.pus, NT_TOPO_MAX_DOMAINS, NT_TOPO_MAX_PUS);
    else if (z.bad_sets)
        st = nt_fail(NT_EINVAL, "synthetic: \"%s\": object %llu (type %.*s) has no %s but "
                     "other sets: not a valid hwloc XML topology (hwloc would crash on it)",
                     path, (unsigned long long)z.bad_index, z.bad_type_len, z.bad_type,
                     z.bad_what);
    free(buf);
    return st;
}
