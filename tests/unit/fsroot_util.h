// A described machine for the memory-limit tests: a fake /proc and /sys tree under a temporary
// root, given to the library (numa/limits.c, numa/room.c) through NT_FSROOT.
#ifndef NUMATILE_TEST_FSROOT_UTIL_H
#define NUMATILE_TEST_FSROOT_UTIL_H

// Make the root (/tmp/nt_fsroot_<tag>_<pid>) holding a one-node machine with 16 GiB free on
// node 0 and in /proc/meminfo, mem_available_gib of MemAvailable and 100 MiB mapped (VmSize);
// set NT_FSROOT to it. No cgroup file yet: add /proc/self/cgroup with fsroot_put().
void fsroot_machine(const char *tag, int mem_available_gib);

// The same, and a v1 memory cgroup "/job" of 1 GiB with 256 MiB used: 768 MiB of room.
void fsroot_cgroup_machine(const char *tag);

// Write ROOT/path (parents made) holding text (Criterion assertion on failure).
void fsroot_put(const char *path, const char *text);

// Unset NT_FSROOT and remove the tree.
void fsroot_remove(void);

#endif
