#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the VM-matrix guests. Mounts the pseudo filesystems, loads the
# kernel's modules, finds the NVMe disks by serial, makes the filesystems,
# then runs `bhprof probe` once and `bhprof stat --attach MODE -- scenario`
# for every mode and scenario in /etc/vm.conf. With VM_JOB=gate-record it
# does none of that: it records the same raw-disk write VM_GATE_RUNS times
# with `bhprof record`, the samples of tests/vm/gate-demo.sh's regression
# gates, into gate/run-N.bhp. Results go to a tar archive
# written raw onto the disk with serial bhp-res; the host unpacks it. The
# console gets one "vm-guest:" line per step. Ends with poweroff -f.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
# another architecture's busybox came with /bin/sh alone
[ -e /bin/mount ] || /bin/busybox --install -s /bin
export HOME=/ TERM=dumb

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null ||
	mount -t debugfs debugfs /sys/kernel/debug
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts 2>/dev/null

. /etc/vm.conf
R=/tmp/results
mkdir -p $R/runs
exec 2>>$R/init.err

log() {
	echo "vm-guest: $*" > /dev/console
	echo "[$(cut -d' ' -f1 /proc/uptime)] $*" >> $R/init.log
}

finish() {
	log "writing results"
	dmesg > $R/dmesg.txt 2>/dev/null
	if [ -n "$RES" ]; then
		tar -cf "$RES" -C $R . && sync
		log "results written to $RES"
	else
		log "no results disk"
	fi
	echo "vm-guest: BHPROF-VM-DONE" > /dev/console
	poweroff -f
	sleep 30
}

# Modules in any order: insert what loads, repeat until nothing more does
# (libcrc32c before xfs without knowing it).
load_modules() {
	left=$(ls /lib/vm-modules/*.ko 2>/dev/null)
	while [ -n "$left" ]; do
		next=""
		for m in $left; do
			if insmod "$m" 2>>$R/insmod.err; then
				log "insmod $(basename $m)"
			else
				next="$next $m"
			fi
		done
		[ "$next" = "$left" ] && break
		left=$next
	done
	for m in $left; do
		log "insmod FAILED: $(basename $m): $(tail -n 1 $R/insmod.err)"
	done
}

# Partial results reach the host even if the guest is killed later.
save() {
	[ -n "$RES" ] && tar -cf "$RES" -C $R . 2>/dev/null && sync
}

# Every run starts from an empty page cache: no dirty pages (or buffer
# heads) left over from the one before.
quiesce() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sync
}

uptime_s() {
	cut -d. -f1 /proc/uptime
}

# /dev name of the NVMe namespace whose controller serial is $1
disk_by_serial() {
	for b in /sys/block/nvme*; do
		[ -e "$b" ] || continue
		s=$(cat $b/device/serial 2>/dev/null || cat $b/serial 2>/dev/null)
		s=$(echo $s)
		if [ "$s" = "$1" ]; then
			echo /dev/${b##*/}
			return 0
		fi
	done
	return 1
}

log "booted $(uname -r) as $VM_KERNEL, $(nproc) cpu(s)"
uname -a > $R/uname.txt
cat /proc/cmdline > $R/cmdline.txt
cp /etc/vm.conf $R/vm.conf
load_modules
lsmod > $R/lsmod.txt 2>/dev/null
# an NVMe driver loaded as a module finds its disks after insmod returns
n=0
while ! disk_by_serial bhp-res >/dev/null && [ $n -lt 30 ]; do
	sleep 0.5
	n=$((n + 1))
done

RES=$(disk_by_serial bhp-res)
RAW1=$(disk_by_serial bhp-raw1)
RAW2=$(disk_by_serial bhp-raw2)
XFS_DEV=$(disk_by_serial bhp-xfs)
EXT4_DEV=$(disk_by_serial bhp-ext4)
export RAW1 RAW2 XFS_DEV EXT4_DEV
{
	echo "RES=$RES"; echo "RAW1=$RAW1"; echo "RAW2=$RAW2"
	echo "XFS_DEV=$XFS_DEV"; echo "EXT4_DEV=$EXT4_DEV"
} > $R/disks.txt
log "disks: res=$RES raw1=$RAW1 raw2=$RAW2 xfs=$XFS_DEV ext4=$EXT4_DEV"
if [ -z "$RES" ] || [ -z "$RAW1" ] || [ -z "$RAW2" ]; then
	log "FATAL: NVMe disks missing"
	ls -l /sys/block > $R/sysblock.txt 2>&1
	finish
fi
for d in $RAW1 $RAW2 $XFS_DEV $EXT4_DEV; do
	echo "$d $(blockdev --getbsz $d) $(blockdev --getss $d)" >> $R/blocksizes.txt
done

# VM_JOB=gate-record: the samples of a regression gate. The same write to
# the raw disk VM_GATE_RUNS times, each under its own `bhprof record` in
# the default attach mode, as a CI job would record it. Each recording is
# one sample; the gate compares the runs of two kernels. The raw disk
# needs no filesystem, so none is made.
gate_record() {
	G=$R/gate
	mkdir -p $G
	i=1
	while [ $i -le "$VM_GATE_RUNS" ]; do
		if [ $(( $(uptime_s) + VM_STAT_TIMEOUT )) -gt "$VM_DEADLINE" ]; then
			log "gate run $i SKIPPED: out of time"
			break
		fi
		quiesce
		timeout -s KILL $VM_STAT_TIMEOUT \
			bhprof record -o $G/run-$i.bhp -d $RAW1 -- \
			vmwriter $VM_GATE_WRITE $RAW1 \
			> $G/run-$i.writer.json 2> $G/run-$i.err
		rc=$?
		echo $rc > $G/run-$i.rc
		log "gate run $i: bhprof record -d $RAW1 -- vmwriter $VM_GATE_WRITE: rc=$rc"
		save
		i=$((i + 1))
	done
	finish
}
[ "${VM_JOB:-matrix}" = gate-record ] && gate_record

mkdir -p /mnt/xfs /mnt/ext4 /mnt/exfat /mnt/vfat /mnt/ntfs /mnt/btrfs /mnt/fuse
export XFS_MNT="" EXT4_MNT="" EXFAT_MNT="" VFAT_MNT="" NTFS_MNT="" BTRFS_MNT=""
export FUSE_MNT=""
FUSE_PID=""

# ext4 as this kernel takes it, for fresh_ext4 and ext4-late.sh: no
# lazy init, no bitmap prefetch (no kernel thread may touch the disk
# behind the scenarios), noatime. orphan_file, which mke2fs 1.47 sets,
# is 5.15's: older kernels refuse to mount it; and 5.10 knows no
# no_prefetch_block_bitmaps (it prefetched only when asked).
kv=$(uname -r)
kmaj=${kv%%.*} kmin=${kv#*.}
kmin=${kmin%%.*}
export EXT4_MKFS_OPTS="" EXT4_MOUNT_OPTS=noinit_itable,no_prefetch_block_bitmaps,noatime
if [ "$kmaj" -lt 5 ] || { [ "$kmaj" -eq 5 ] && [ "$kmin" -lt 15 ]; }; then
	EXT4_MKFS_OPTS="-O ^orphan_file" EXT4_MOUNT_OPTS=noinit_itable,noatime
fi

# A fresh filesystem for every run that uses one, so that each attach
# mode sees the same disk state and must report the same counts.
fresh_xfs() {
	XFS_MNT=""
	[ "$VM_HAVE_XFS" = 1 ] && [ -n "$XFS_DEV" ] || return 0
	umount /mnt/xfs 2>/dev/null
	if mkfs.xfs -f -q "$XFS_DEV" >>$R/mkfs.log 2>&1 &&
	   mount -t xfs -o noatime "$XFS_DEV" /mnt/xfs 2>>$R/mkfs.log; then
		XFS_MNT=/mnt/xfs
	else
		log "FAILED: mkfs/mount xfs on $XFS_DEV"
	fi
}

fresh_ext4() {
	EXT4_MNT=""
	[ "$VM_HAVE_EXT4" = 1 ] && [ -n "$EXT4_DEV" ] || return 0
	umount /mnt/ext4 2>/dev/null
	# 4 KiB blocks as on any real disk (mke2fs picks 1 KiB below 512 MB);
	# no lazy init, no bitmap prefetch: no kernel thread may touch the
	# disk behind the scenarios (noatime: nor may a read)
	if mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 \
		$EXT4_MKFS_OPTS "$EXT4_DEV" >>$R/mkfs.log 2>&1 &&
	   mount -t ext4 -o $EXT4_MOUNT_OPTS "$EXT4_DEV" /mnt/ext4 2>>$R/mkfs.log; then
		EXT4_MNT=/mnt/ext4
	else
		log "FAILED: mkfs/mount ext4 on $EXT4_DEV"
	fi
}

# exfat, on the second raw disk: its scenario runs alone there. Its
# path is whatever the kernel gives it (buffer heads to 6.x, iomap in
# 7.x): the scenario counts the engine functions that ran.
fresh_exfat() {
	EXFAT_MNT=""
	[ "$VM_HAVE_EXFAT" = 1 ] && [ -n "$RAW2" ] || return 0
	umount /mnt/exfat /mnt/vfat /mnt/ntfs /mnt/btrfs 2>/dev/null
	if mkfs.exfat "$RAW2" >>$R/mkfs.log 2>&1 &&
	   mount -t exfat -o noatime "$RAW2" /mnt/exfat 2>>$R/mkfs.log; then
		EXFAT_MNT=/mnt/exfat
	else
		log "FAILED: mkfs/mount exfat on $RAW2"
	fi
}

# vfat, the same way: FAT writes and writes back through buffer heads
# (generic_perform_write, mpage_writepages) on every kernel that has them
fresh_vfat() {
	VFAT_MNT=""
	[ "$VM_HAVE_VFAT" = 1 ] && [ -n "$RAW2" ] || return 0
	# the second raw disk is exfat's too: only one of them holds it
	umount /mnt/exfat /mnt/vfat /mnt/ntfs /mnt/btrfs 2>/dev/null
	if mkdosfs "$RAW2" >>$R/mkfs.log 2>&1 &&
	   mount -t vfat -o noatime "$RAW2" /mnt/vfat 2>>$R/mkfs.log; then
		VFAT_MNT=/mnt/vfat
	else
		log "FAILED: mkfs/mount vfat on $RAW2"
	fi
}

# btrfs, the same way: on neither path, the other group's (its own write
# and writeback code, bios from its workers)
fresh_btrfs() {
	BTRFS_MNT=""
	[ "$VM_HAVE_BTRFS" = 1 ] && [ -n "$RAW2" ] || return 0
	umount /mnt/exfat /mnt/vfat /mnt/ntfs /mnt/btrfs 2>/dev/null
	if mkfs.btrfs -q -f "$RAW2" >>$R/mkfs.log 2>&1 && sync &&
	   mount -t btrfs -o noatime "$RAW2" /mnt/btrfs 2>>$R/mkfs.log; then
		BTRFS_MNT=/mnt/btrfs
	else
		log "FAILED: mkfs/mount btrfs on $RAW2"
	fi
}

# NTFS, the same way, through the kernel's driver: ntfs3 (buffer heads:
# generic_perform_write, mpage_writepages) or the new ntfs (iomap)
fresh_ntfs() {
	NTFS_MNT=""
	[ -n "$VM_NTFS_DRIVER" ] && [ -n "$RAW2" ] || return 0
	umount /mnt/exfat /mnt/vfat /mnt/ntfs /mnt/btrfs 2>/dev/null
	# mkntfs leaves its writes in the block device's page cache: synced
	# here, not by the flusher inside the scenario
	if mkntfs -Q -F "$RAW2" >>$R/mkfs.log 2>&1 && sync &&
	   mount -t "$VM_NTFS_DRIVER" -o noatime "$RAW2" /mnt/ntfs 2>>$R/mkfs.log; then
		NTFS_MNT=/mnt/ntfs
	else
		log "FAILED: mkfs/mount $VM_NTFS_DRIVER on $RAW2"
	fi
}

# FUSE, served from memfuse's memory (no disk: its data goes to the
# server, no bio of its own), with the kernel's writeback cache (-w) or
# without. The server of the run before goes with its mount.
fresh_fuse() {
	FUSE_MNT=""
	[ "$VM_HAVE_FUSE" = 1 ] || return 0
	if [ -n "$FUSE_PID" ]; then
		umount /mnt/fuse 2>/dev/null
		kill $FUSE_PID 2>/dev/null
		wait $FUSE_PID 2>/dev/null
		FUSE_PID=""
	fi
	# (devtmpfs makes it; a kernel without devtmpfs leaves /dev the
	# initramfs's own, empty)
	[ -c /dev/fuse ] || mknod /dev/fuse c 10 229
	memfuse "$@" /mnt/fuse >> $R/memfuse.log 2>&1 &
	FUSE_PID=$!
	n=0
	until grep -q "^[^ ]* /mnt/fuse fuse" /proc/mounts; do
		n=$((n + 1))
		if [ $n -gt 50 ] || ! kill -0 $FUSE_PID 2>/dev/null; then
			log "FAILED: memfuse $* on /mnt/fuse: $(tail -n 1 $R/memfuse.log)"
			return 0
		fi
		sleep 0.2
	done
	FUSE_MNT=/mnt/fuse
}

fresh_xfs
fresh_ext4
log "filesystems: xfs=${XFS_MNT:-none} ext4=${EXT4_MNT:-none}"
mount > $R/mounts.txt
sync

# room for every bio of a scenario in the reference trace
echo 8192 > /sys/kernel/tracing/buffer_size_kb 2>/dev/null

# The reference counts' symbols, in one pass over one copy of the symbol
# table (/proc/kallsyms takes seconds to read under TCG with Debian's
# modules loaded):
# - "range FUNC LO HI", the text of alloc_buffer_head and of
#   free_buffer_head, from its address to the next symbol's (kallsyms
#   addresses are 16 hex digits, so they compare as strings): the
#   buffer_head allocations and frees are the kmem_cache_alloc and
#   kmem_cache_free events whose call site lies there (absent: none exist);
# - "ref [MOD:]FUNC", each function of the kernel's own count of read,
#   page_mkwrite, fallback and writeback calls and of the write and
#   writeback engines (fuse's own too: which of them ran is the path a
#   fuse file's writes took). A module's function is named MOD:FUNC,
#   which the kernel arms again each time the module loads (ext4-late
#   unloads and loads ext4).
ref_funcs="block_read_full_folio mpage_readahead ext4_read_folio ext4_readahead
	iomap_read_folio iomap_readahead block_read_full_page ext4_readpage
	iomap_readpage block_page_mkwrite ext4_page_mkwrite
	iomap_page_mkwrite direct_write_fallback
	block_write_full_folio block_write_full_page
	iomap_file_buffered_write generic_perform_write
	do_writepages ext4_writepages mpage_writepages __mpage_writepages
	iomap_writepages fuse_perform_write fuse_writepages"
awk -v want="$ref_funcs" '
	BEGIN {
		n = split(want, w)
		for (i = 1; i <= n; i++) W[w[i]] = 1
		Rg["alloc_buffer_head"] = Rg["free_buffer_head"] = 1
	}
	{ a[NR] = $1 }
	($3 in Rg) && !($3 in lo) { lo[$3] = $1 }
	($2 == "t" || $2 == "T") && ($3 in W) && !($3 in seen) {
		seen[$3] = 1
		m = $4
		gsub(/\[|\]/, "", m)
		print "ref", (m == "" ? "" : m ":") $3
	}
	END {
		for (f in lo) {
			hi = ""
			for (i = 1; i <= NR; i++)
				if (a[i] > lo[f] && (hi == "" || a[i] < hi)) hi = a[i]
			print "range", f, lo[f], hi
		}
	}' /proc/kallsyms > /tmp/ref-syms
while read -r kind f lo hi; do
	case $kind:$f in
	range:alloc_buffer_head)
		echo "call_site >= 0x$lo && call_site < 0x$hi" > /tmp/bh-filter
		log "buffer_head reference: kmem_cache_alloc call_site in [0x$lo, 0x$hi)" ;;
	range:free_buffer_head)
		echo "call_site >= 0x$lo && call_site < 0x$hi" > /tmp/bhfree-filter ;;
	ref:*)
		# made once, since adding a probe event would empty the trace
		# buffer of a running scenario; the scenarios enable them
		# around their load only (scenarios/common.sh)
		echo "p:bhpref/${f#*:} $f" >> /sys/kernel/tracing/kprobe_events 2>>$R/init.err ||
			log "no kprobe event for $f" ;;
	esac
done < /tmp/ref-syms
[ -f /tmp/bh-filter ] || log "no alloc_buffer_head in kallsyms: buffer heads compiled out"

# The kernel's own writeback passes and iomap read calls, for bhprof's
# pass group and tracepoint mode (tests/lib/trace-passes.awk counts them
# on the host): on for the whole run, recorded only while a scenario has
# tracing on (each enable is a code patch, slow under TCG)
: > $R/pass-events.txt
for e in writeback/writeback_single_inode_start writeback/writeback_single_inode \
	 ext4/ext4_writepages ext4/ext4_writepages_result \
	 iomap/iomap_readpage iomap/iomap_readahead; do
	[ -d /sys/kernel/tracing/events/$e ] || continue
	echo 1 > /sys/kernel/tracing/events/$e/enable 2>>$R/init.err &&
		echo $e >> $R/pass-events.txt
done
log "reference events: $(tr '\n' ' ' < $R/pass-events.txt)"

# probe: what attaches here, once in auto mode
bhprof probe --json > $R/probe.json 2> $R/probe.err
echo $? > $R/probe.rc
bhprof probe > $R/probe.txt 2>&1
log "probe rc=$(cat $R/probe.rc)"
# auto mode, as a user runs it, recorded and reported: which mode each
# probe took here, and the machine and page size the recording keeps
bhprof record -o $R/auto.bhp --duration 1 > /dev/null 2> $R/auto.err
echo $? > $R/auto.rc
bhprof report --json $R/auto.bhp > $R/auto-report.json 2>> $R/auto.err
log "auto record rc=$(cat $R/auto.rc)"
# how bhprof gives up root on this kernel (src/util/priv.c says it with -v)
bhprof stat -v --duration 0.5 > /dev/null 2> $R/priv.err
echo $? > $R/priv.rc
grep -E '^bhprof: (probes attached|kept root)' $R/priv.err > $R/priv.txt
log "priv: $(cat $R/priv.txt)"
save

# the filesystems a scenario uses, fresh, and what it reads made
# beforehand (scenario.prep), outside bhprof's run
fresh_for() {
	case $1 in
	ext4-*) fresh_ext4 ;;
	exfat-*) fresh_exfat ;;
	vfat-*) fresh_vfat ;;
	ntfs-*) fresh_ntfs ;;
	btrfs-*) fresh_btrfs ;;
	fuse-wbc-*) fresh_fuse -w ;;
	fuse-*) fresh_fuse ;;
	xfs-*|two-writers) fresh_xfs ;;
	file-read|mmap-write) fresh_ext4; fresh_xfs ;;
	esac
	if [ -f /scenarios/$1.prep ]; then
		sh /scenarios/$1.prep >> $R/prep.log 2>&1 ||
			log "$1: prep FAILED"
	fi
}

for mode in $VM_MODES; do
	for s in $VM_SCENARIOS; do
		d=$R/runs/$mode/$s
		# the host kills the guest soon after VM_DEADLINE: stop in
		# time to hand back what is done
		if [ $(( $(uptime_s) + VM_STAT_TIMEOUT )) -gt "$VM_DEADLINE" ]; then
			log "$mode $s SKIPPED: out of time"
			mkdir -p $d
			echo "guest out of time at uptime $(uptime_s)s (deadline ${VM_DEADLINE}s)" > $d/skipped
			continue
		fi
		mkdir -p $d
		fresh_for $s
		quiesce
		# the kernel's own names of the filesystems written to
		cat /proc/mounts > $d/mounts.txt
		t0=$(cut -d' ' -f1 /proc/uptime)
		V=""
		[ "$VM_VERBOSE" = 1 ] && V=-v
		# scenario.opts: bhprof options of its own (--callers; -d
		# \$RAW2, expanded here)
		X=$(eval "echo $(cat /scenarios/$s.opts 2>/dev/null)")
		case " $X " in *" --callers "*) X="$X --folded $d/folded.txt" ;; esac
		MODE=$mode timeout -s KILL $VM_STAT_TIMEOUT \
			bhprof stat --json $V $X --attach $mode -- \
			/scenarios/$s.sh $d > $d/stat.json 2> $d/stat.err
		rc=$?
		t1=$(cut -d' ' -f1 /proc/uptime)
		# ... and of those the scenario mounted itself (ext4-late)
		cat /proc/mounts >> $d/mounts.txt
		echo $rc > $d/rc
		echo "$t0 $t1" > $d/uptime
		log "$mode $s rc=$rc ($t0 -> $t1 s)"
		if [ $rc -ne 0 ] && [ -z "$V" ]; then
			# once more with the libbpf log, for the report
			fresh_for $s
			quiesce
			mkdir -p $d/verbose
			MODE=$mode timeout -s KILL $VM_STAT_TIMEOUT \
				bhprof stat --json -v $X --attach $mode -- \
				/scenarios/$s.sh $d/verbose \
				> $d/verbose/stat.json 2> $d/verbose/stat.err
			echo $? > $d/verbose/rc
		fi
		save
	done
done

# A recording of a module loaded under bhprof (where the plan has
# ext4-late): the snapshots mark when ext4's probes came, and report
# lists it with its time (check-results.sh holds both)
case " $VM_SCENARIOS " in
*" ext4-late "*)
	umount /mnt/ext4 2>/dev/null
	if rmmod ext4 2>> $R/late-record.err; then
		bhprof record -o $R/late.bhp -i 0.5 -- sh -c '
			insmod /lib/vm-modules/ext4.ko || exit 2
			n=0
			until grep -q "^bhprof: module ext4 loaded" '"$R"'/late-record.err; do
				n=$((n + 1))
				[ $n -le 150 ] || exit 1
				sleep 0.2
			done
			sleep 1' > /dev/null 2>> $R/late-record.err
		echo $? > $R/late-record.rc
		bhprof report --json $R/late.bhp > $R/late-report.json 2>> $R/late-record.err
		bhprof report $R/late.bhp > $R/late-report.txt 2>> $R/late-record.err
	fi
	log "late record rc=$(cat $R/late-record.rc 2>/dev/null)"
	save ;;
esac

# What each mode costs a writer, per write call: the same 4 KiB writes
# to the raw disk bare and under every mode, VM_COST_ROUNDS rounds, the
# modes interleaved, each round starting one further along; vmwriter
# reports its own CPU time. Figures only: under TCG they are ratios at
# best (check-results.sh prints them). VM_COST_FLOOR=1 (bench-vm): each
# mode's floor too, bhprof's programs returning before their bodies
# (floor-MODE: BHPROF_FLOOR=1).
if [ "${VM_COST_ROUNDS:-0}" -gt 0 ]; then
	mkdir -p $R/cost
	floors=""
	[ "${VM_COST_FLOOR:-0}" = 1 ] &&
		floors=$(for m in $VM_MODES; do printf 'floor-%s ' $m; done)
	set -- bare $VM_MODES $floors
	# the first writes after boot pay the allocator's and the page
	# cache's warm-up (1% more instructions a call): not a round's
	quiesce
	vmwriter -s 4k -t 64m "$RAW1" > /dev/null
	for r in $(seq $VM_COST_ROUNDS); do
		for mode in "$@"; do
			if [ $(( $(uptime_s) + VM_STAT_TIMEOUT )) -gt "$VM_DEADLINE" ]; then
				log "cost $mode round $r SKIPPED: out of time"
				continue
			fi
			quiesce
			case $mode in
			bare)
				vmwriter -s 4k -t 64m "$RAW1" > $R/cost/$mode.$r.json ;;
			floor-*)
				BHPROF_FLOOR=1 timeout -s KILL $VM_STAT_TIMEOUT \
					bhprof stat --attach ${mode#floor-} -- \
					vmwriter -s 4k -t 64m "$RAW1" \
					> $R/cost/$mode.$r.json 2> $R/cost/$mode.$r.err ;;
			*)
				timeout -s KILL $VM_STAT_TIMEOUT bhprof stat \
					--attach $mode -- vmwriter -s 4k -t 64m "$RAW1" \
					> $R/cost/$mode.$r.json 2> $R/cost/$mode.$r.err ;;
			esac
			log "cost $mode round $r rc=$?"
		done
		save
		first=$1
		shift
		set -- "$@" "$first"
	done
fi

finish
