#!/bin/sh
# The multi-NUMA test bed: boots Debian's own kernel under QEMU (software emulation) in several
# NUMA shapes and runs the guest_*.c integration tests inside each guest.
#   usage: sh tests/vm/run.sh BUILD_DIR        (from the top of the tree; `make test-vm`)
#   NT_VM_SHAPES="flat4"   run only some shapes;  NT_VM_TIMEOUT=SECONDS  per guest (300)
#   NT_VM_APPEND="..."     extra kernel parameters (e.g. transparent_hugepage=never; for a
#                          measurement, nt.only=advise runs one guest program and
#                          nt.advise=N:NB:REPS sizes guest_advise's QR, see docs/vm.md)
#   NT_VM_SHAPES="hmat3"   the memory-tier guest (HMAT; guest_tiers checks it page by page)
# Exits non-zero when a check fails, a guest does not report, or QEMU cannot run.
set -eu

say() { echo "vm: $*"; }
die() {
    echo "vm: FAIL: $*" >&2
    exit 1
}

[ $# -eq 1 ] || die "usage: sh tests/vm/run.sh BUILD_DIR"
cd "$(dirname "$0")/../.."
BUILD=$1
mkdir -p "$BUILD/vm"
VM=$(cd "$BUILD/vm" && pwd)
CC=${CC:-cc}
TMO=${NT_VM_TIMEOUT:-300}

# --- The shapes. One token per node: CPUS:MIB, CPUS in QEMU's cpus= syntax ("-" for a
# memory-only node); DIST lists SRC-DST-VALUE pairs given to `-numa dist` (both directions;
# no DIST means QEMU builds no SLIT and the kernel reports 10 local / 20 remote).
# The same description goes to the guest on the kernel command line, so the guest checks the
# machine against exactly what QEMU was asked for.
shape_flat4() {
    NODES="0:512 1:512 2:512 3:512"
    DIST=""
}
shape_asym3() {
    NODES="0-1:768 2-3:768 -:512"
    DIST="0-1-20 0-2-30 1-2-25"
}
# Two nodes of one vCPU each: no more vCPUs than this machine's 2 cores, so guest timings are
# not distorted by vCPU threads time-sharing a core (the advisor's validation needs that).
shape_pair2() {
    NODES="0:768 1:768"
    DIST="0-1-20"
    SMP=2
}
# Memory tiers: two DRAM nodes and a slower memory-only node, with an ACPI HMAT (QEMU's
# -machine hmat=on). HMAT lists INITIATOR-TARGET-LATENCY_NS-BANDWIDTH (QEMU's size suffixes,
# bytes/s) for every pair; a memory-only node's best initiator is node 0.
shape_hmat3() {
    NODES="0-1:256 2-3:256 -:1024"
    DIST="0-1-20 0-2-30 1-2-30"
    HMAT="0-0-100-20G 0-1-200-10G 0-2-400-4G 1-0-200-10G 1-1-100-20G 1-2-450-3G"
    SHAPE_TMO=300 # guest_tiers places 640 MiB: every program took 149 s at load 17
}
SHAPES=${NT_VM_SHAPES:-"flat4 asym3 pair2 hmat3"}
for s in $SHAPES; do
    command -v "shape_$s" >/dev/null 2>&1 ||
        die "unknown shape '$s' (have: flat4 asym3 pair2 hmat3)"
done

# --- Host tools: never skip silently.
need() {
    command -v "$1" >/dev/null 2>&1 || die "'$1' not found (package $2): run 'make deps'"
}
need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need gzip gzip
need timeout coreutils
need ldd libc-bin
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "$BUSYBOX not found (package busybox-static): run 'make deps'"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
    die "$BUSYBOX is dynamically linked; install busybox-static ('make deps')"
fi

# --- The kernel: the image package linux-image-amd64 depends on, fetched once, kept in $VM.
find_kernel() {
    for f in "$VM"/kernel/boot/vmlinuz-*; do
        [ -f "$f" ] && { echo "$f"; return 0; }
    done
    return 0
}
kernel_package() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        sed -n 's/^ *Depends: *\(linux-image-[^ <>]*\).*/\1/p' | head -n 1
}
apt_update() {
    say "$1: running apt-get update"
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq >>"$VM/apt.log" 2>&1 || die "apt-get update failed (see $VM/apt.log)"
}
download() {
    rm -rf "$VM/dl"
    mkdir -p "$VM/dl"
    (cd "$VM/dl" && apt-get download "$1") >>"$VM/apt.log" 2>&1
}
KERNEL=$(find_kernel)
if [ -z "$KERNEL" ]; then
    need apt-get apt
    need dpkg-deb dpkg
    : >"$VM/apt.log"
    pkg=$(kernel_package)
    if [ -z "$pkg" ]; then
        apt_update "apt-cache knows no linux-image-amd64"
        pkg=$(kernel_package)
    fi
    [ -n "$pkg" ] || die "apt-cache depends linux-image-amd64 names no linux-image package"
    say "downloading kernel package $pkg (once; kept in $VM/kernel)"
    if ! download "$pkg"; then
        # Old package lists may name a kernel the archive no longer has.
        apt_update "apt-get download $pkg failed"
        pkg=$(kernel_package)
        download "$pkg" || die "apt-get download $pkg failed (see $VM/apt.log)"
    fi
    rm -rf "$VM/kernel.new"
    mkdir -p "$VM/kernel.new"
    for deb in "$VM"/dl/*.deb; do :; done
    [ -f "$deb" ] || die "apt-get download $pkg left no .deb in $VM/dl"
    # Like `dpkg -x`, but only the kernel image is written (the modules are not needed: the
    # guest boots from the initramfs with built-in drivers).
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$VM/kernel.new" --wildcards './boot/vmlinuz-*' ||
        die "no boot/vmlinuz-* in $deb"
    rm -rf "$VM/kernel"
    mv "$VM/kernel.new" "$VM/kernel"
    rm -rf "$VM/dl"
    KERNEL=$(find_kernel)
    [ -n "$KERNEL" ] || die "no boot/vmlinuz-* in $deb"
fi

# --- Guest programs: every tests/vm/guest_*.c, with the project's flags, on the static library
# (and the bench harness's statistics).
LIB=$BUILD/lib/libnumatile.a
if [ ! -f "$LIB" ]; then
    say "building $LIB"
    make -s BUILD="$BUILD" "$LIB" >/dev/null || die "cannot build $LIB"
fi
rm -rf "${VM:?}/bin"
mkdir -p "$VM/bin"
GUESTS=""
for src in tests/vm/guest_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    # The harness's statistics (bench_spearman) are shared with bench advise.
    $CC -std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -fopenmp \
        -Iinclude -Icore -Ibench/harness -D_GNU_SOURCE "$src" bench/harness/stats.c "$LIB" \
        -o "$VM/bin/$name" -ljansson -lhwloc -lnuma -lflame -lblis -lm -lpthread ||
        die "cannot build $src"
    GUESTS="$GUESTS $VM/bin/$name"
done
[ -n "$GUESTS" ] || die "no tests/vm/guest_*.c to run"
TOOL=""
if [ -x "$BUILD/bin/numatile" ]; then
    TOOL=$BUILD/bin/numatile
else
    say "no $BUILD/bin/numatile: the guest does not check the tool"
fi

# --- The initramfs: busybox, the programs, every library ldd lists (and the loader), /init.
ROOTFS=$VM/rootfs
rm -rf "$ROOTFS"
mkdir -p "$ROOTFS/bin" "$ROOTFS/proc" "$ROOTFS/sys" "$ROOTFS/dev" "$ROOTFS/tmp"
cp "$BUSYBOX" "$ROOTFS/bin/busybox"
ln -s busybox "$ROOTFS/bin/sh"
cp tests/vm/init.sh "$ROOTFS/init"
chmod 755 "$ROOTFS/init"
for b in $GUESTS $TOOL; do
    cp "$b" "$ROOTFS/bin/"
    libs=$(ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }') ||
        die "ldd $b failed"
    for l in $libs; do
        [ -f "$ROOTFS$l" ] && continue
        mkdir -p "$ROOTFS$(dirname "$l")"
        cp -L "$l" "$ROOTFS$l"
    done
done
INITRD=$VM/initramfs.cpio.gz
(cd "$ROOTFS" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) \
    >"$INITRD.new" || die "cannot build the initramfs"
mv "$INITRD.new" "$INITRD"
say "kernel $(basename "$KERNEL"), initramfs $(($(wc -c <"$INITRD") / 1024)) KiB," \
    "guests:$(for g in $GUESTS; do printf ' %s' "$(basename "$g")"; done)"

# --- One guest per shape.
# field NAME LINE: the value of NAME=... in a summary line
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# the serial log without carriage returns and the firmware's terminal escapes
ESC=$(printf '\033')
clean_log() { tr -d '\r' <"$1" | sed -e "s/${ESC}c//g" -e "s/${ESC}\[[0-9;?]*[A-Za-z]//g"; }

failures=0
run_shape() {
    name=$1
    SMP=4 # the shape may say otherwise
    HMAT=""
    SHAPE_TMO=""
    "shape_$name"
    set --
    k=0
    mib=0
    cpus=""
    mems=""
    for nd in $NODES; do
        c=${nd%%:*}
        m=${nd#*:}
        set -- "$@" -object "memory-backend-ram,id=m$k,size=${m}M"
        if [ "$c" = - ]; then
            # With an HMAT, QEMU needs the initiator of a memory-only node.
            set -- "$@" -numa "node,nodeid=$k,memdev=m$k${HMAT:+,initiator=0}"
        else
            set -- "$@" -numa "node,nodeid=$k,cpus=$c,memdev=m$k"
        fi
        cpus="$cpus${cpus:+/}$c"
        mems="$mems${mems:+/}$m"
        mib=$((mib + m))
        k=$((k + 1))
    done
    nodes=$k
    dist=""
    for dd in $DIST; do
        src=${dd%%-*}
        rest=${dd#*-}
        dst=${rest%%-*}
        val=${rest#*-}
        set -- "$@" -numa "dist,src=$src,dst=$dst,val=$val" -numa "dist,src=$dst,dst=$src,val=$val"
        dist="$dist${dist:+,}$dd"
    done
    hmat=""
    [ -n "$HMAT" ] && set -- "$@" -machine hmat=on
    for h in $HMAT; do
        i=${h%%-*} rest=${h#*-}
        t=${rest%%-*} rest=${rest#*-}
        lat=${rest%%-*} bw=${rest#*-}
        set -- "$@" -numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-latency,latency=$lat" \
            -numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw"
        hmat="$hmat${hmat:+,}$h"
    done
    log=$VM/$name.log
    # no_timer_check: on a loaded host the emulated timer can miss the kernel's IO-APIC check
    # ("IO-APIC + timer doesn't work!" panic at boot, seen at load 20).
    append="console=ttyS0 quiet panic=-1 no_timer_check nt.shape=$name nt.cpus=$cpus nt.mem=$mems"
    append="$append nt.dist=${dist:-none} nt.hmat=${hmat:-none} ${NT_VM_APPEND:-}"
    t0=$(date +%s)
    rc=0
    tmo=$TMO
    [ -n "$SHAPE_TMO" ] && [ -z "${NT_VM_TIMEOUT:-}" ] && tmo=$SHAPE_TMO
    timeout -k 5 "$tmo" qemu-system-x86_64 -accel tcg -cpu max -m "${mib}M" -smp "$SMP" "$@" \
        -kernel "$KERNEL" -initrd "$INITRD" -append "$append" \
        -nographic -nodefaults -serial stdio -no-reboot </dev/null >"$log.raw" 2>&1 || rc=$?
    secs=$(($(date +%s) - t0))
    clean_log "$log.raw" >"$log"
    rm -f "$log.raw"
    line=$(sed -n 's/^NT-SUMMARY //p' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        failures=$((failures + 1))
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            say "shape=$name FAIL: no summary after ${tmo}s (guest hung; log $log)"
        elif [ "$rc" -ne 0 ]; then
            say "shape=$name FAIL: qemu-system-x86_64 exited with status $rc (log $log):"
        else
            say "shape=$name FAIL: the guest stopped without a summary (log $log):"
        fi
        tail -n 15 "$log" | sed 's/^/vm:   | /'
        return 0
    fi
    g_nodes=$(field nodes "$line")
    tests=$(field tests "$line")
    passed=$(field passed "$line")
    failed=$(field failed "$line")
    say "shape=$name nodes=$g_nodes tests=$tests passed=$passed failed=$failed (${secs}s)"
    sed -n 's/^.*pages verified per node: /vm:   pages verified per node: /p' "$log"
    if [ "$g_nodes" != "$nodes" ] || [ "$failed" != 0 ] || [ "$tests" = 0 ] ||
        [ "$passed" != "$tests" ]; then
        failures=$((failures + 1))
        [ "$g_nodes" = "$nodes" ] ||
            say "shape=$name FAIL: the guest has $g_nodes nodes, not $nodes"
        grep -E '^(FAIL|guest: .* (crashed|exited))' "$log" | sed 's/^/vm:   /' || true
    fi
    return 0
}

for s in $SHAPES; do
    run_shape "$s"
done
if [ "$failures" -ne 0 ]; then
    say "FAIL: $failures shape(s) failed; logs in $VM"
    exit 1
fi
say "all shapes passed; logs in $VM"
