#!/bin/sh
# /init of the test guest (busybox sh): mounts the kernel file systems, reads the expected NUMA
# shape from the kernel command line (nt.*= words, see run.sh), runs every /bin/guest_* program,
# prints one NT-SUMMARY line for the host and powers off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# Keep kernel messages from interleaving with the test output on the serial console.
echo 1 >/proc/sys/kernel/printk
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/lib:/usr/lib
export OMP_WAIT_POLICY=passive

NT_SHAPE=unknown NT_CPUS="" NT_MEM="" NT_DIST="" NT_HMAT="" NT_ONLY="" NT_ADVISE=""
for w in $(cat /proc/cmdline); do
    case "$w" in
    nt.shape=*) NT_SHAPE=${w#nt.shape=} ;;
    nt.cpus=*) NT_CPUS=${w#nt.cpus=} ;;
    nt.mem=*) NT_MEM=${w#nt.mem=} ;;
    nt.dist=*) NT_DIST=${w#nt.dist=} ;;
    nt.hmat=*) NT_HMAT=${w#nt.hmat=} ;;
    nt.only=*) NT_ONLY=${w#nt.only=} ;;
    nt.advise=*) NT_ADVISE=${w#nt.advise=} ;;
    esac
done
export NT_SHAPE NT_CPUS NT_MEM NT_DIST NT_HMAT NT_ADVISE
[ -x /bin/numatile ] && export NT_TOOL=/bin/numatile

nodes=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
echo "guest: shape=$NT_SHAPE kernel $(uname -r), $nodes NUMA nodes, $(nproc) cpus"
echo "guest: nt.cpus=$NT_CPUS nt.mem=$NT_MEM nt.dist=$NT_DIST nt.hmat=$NT_HMAT"
# What the kernel exposes of the HMAT (what hwloc reads): node0's access classes.
for a in /sys/devices/system/node/node*/access[01]/initiators; do
    [ -d "$a" ] && echo "guest: hmat: $a: $(cat "$a"/read_bandwidth 2>/dev/null) MB/s," \
        "$(cat "$a"/read_latency 2>/dev/null) ns"
done
echo "guest: transparent hugepages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
[ -n "${NT_TOOL:-}" ] && "$NT_TOOL" topo

T=0 P=0 F=0
for g in /bin/guest_*; do
    name=${g#/bin/guest_}
    # nt.only=NAME runs one program (a measurement, not the test suite).
    [ -n "$NT_ONLY" ] && [ "$name" != "$NT_ONLY" ] && continue
    read -r t0 _ </proc/uptime
    { "$g"; echo "$?" >/tmp/rc; } 2>&1 | tee /tmp/out
    rc=$(cat /tmp/rc)
    read -r t1 _ </proc/uptime
    # Where a shape's minutes go (make test's time budget).
    echo "guest: $name took $((${t1%.*} - ${t0%.*})) s"
    sum=$(grep "^guest: $name tests=" /tmp/out | tail -n 1)
    if [ -z "$sum" ]; then
        echo "guest: $name crashed (exit status $rc, no summary line)"
        T=$((T + 1)) F=$((F + 1))
        continue
    fi
    t=$(echo "$sum" | sed -n 's/.* tests=\([0-9]*\).*/\1/p')
    p=$(echo "$sum" | sed -n 's/.* passed=\([0-9]*\).*/\1/p')
    f=$(echo "$sum" | sed -n 's/.* failed=\([0-9]*\).*/\1/p')
    T=$((T + t)) P=$((P + p)) F=$((F + f))
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        echo "guest: $name exited with status $rc although no check failed"
        T=$((T + 1)) F=$((F + 1))
    fi
done
echo "NT-SUMMARY shape=$NT_SHAPE nodes=$nodes tests=$T passed=$P failed=$F"
poweroff -f
