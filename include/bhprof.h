/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Layouts shared by bpf/bhprof.bpf.c and the userspace loader: path ids,
 * map keys and values, and the log-linear histogram bucket layout.
 *
 * Everything the kernel side keeps is cumulative; userspace takes the
 * difference of two reads, so no event is lost between intervals.
 */
#ifndef BHPROF_H
#define BHPROF_H

#ifndef __BPF__
#include <stdint.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
typedef uint64_t bhp_u64;
typedef uint32_t bhp_u32;
#else
typedef __u64 bhp_u64;
typedef __u32 bhp_u32;
#endif

/*
 * The two write paths, and the group of what takes neither. A regular
 * file's inode belongs to one of the three, by what its kernel does with
 * its page cache.
 */
enum bhp_path {
	PATH_BH = 0,
	PATH_IOMAP = 1,
	NR_PATHS = 2,
	/* "other": files on neither path (btrfs, f2fs, nfs, tmpfs, fuse's
	 * writes without its writeback cache), and the bios and
	 * allocations that no path context claims */
	PATH_NONE = 2,
	/* the rows of path_stats: both paths and other */
	NR_PATH_ROWS = 3,
	/* BPF only: an inode with no page cache of a file (a pipe, a
	 * socket, a directory): no write context opens for it */
	PATH_NOFILE = 3,
};

/*
 * Probe groups: each attaches, or fails, as a whole, so that a group
 * never runs two flavours at once (which would count a call twice).
 */
enum bhp_group {
	BHP_GROUP_WRITE = 0,	/* write calls */
	BHP_GROUP_WB = 1,	/* writeback calls, pages and context */
	BHP_GROUP_BH = 2,	/* buffer_head allocations */
	BHP_GROUP_BIO = 3,	/* bios, always the block_bio_queue tracepoint */
	BHP_GROUP_READ = 4,	/* read_folio and readahead calls, read context */
	BHP_GROUP_MKWRITE = 5,	/* page_mkwrite faults of shared mappings */
	BHP_GROUP_CALLERS = 6,	/* --callers: owners and frees of bh */
	BHP_GROUP_PASS = 7,	/* writeback passes over an inode, timed */
	BHP_NR_GROUPS = 8,
};

/* Histograms kept per path. */
enum bhp_hist_kind {
	HIST_WRITE_LAT = 0,	/* buffered write call latency, ns */
	HIST_DIO_LAT = 1,	/* O_DIRECT write call latency, ns */
	HIST_WB_LAT = 2,	/* writeback call latency, ns */
	HIST_BIO_SIZE = 3,	/* bytes per bio */
	HIST_READ_LAT = 4,	/* read_folio / readahead call latency, ns */
	HIST_READ_BIO_SIZE = 5,	/* bytes per read bio */
	HIST_MKWRITE_LAT = 6,	/* page_mkwrite latency, ns */
	HIST_PASS_LAT = 7,	/* writeback pass over an inode, ns */
	NR_HIST_KINDS = 8,
};

/*
 * The first four kinds keep the ids they had when there were only four
 * (path * 4 + kind): record files store histograms by this id. Later
 * kinds follow all of those, kind-major, so that more can be appended.
 */
#define HIST_OLD_KINDS 4
#define NR_HISTS (NR_PATHS * NR_HIST_KINDS)
#define HIST_ID(path, kind)                                                \
	((kind) < HIST_OLD_KINDS ?                                         \
		 (path) * HIST_OLD_KINDS + (kind) :                        \
		 NR_PATHS * HIST_OLD_KINDS +                               \
			 ((kind) - HIST_OLD_KINDS) * NR_PATHS + (path))

/*
 * Log-linear buckets (HdrHistogram-style): values below 2^SUB_BITS are
 * exact, above that each power of two is cut into 2^SUB_BITS buckets.
 * With 5 sub-bits a bucket is at most 1/32 of its lower bound wide, so a
 * percentile read at the bucket midpoint is within 1.6% of the truth.
 * 1152 buckets reach 2^40 (18 minutes in ns, 1 TiB in bytes); larger
 * values land in the last bucket.
 */
#define HIST_SUB_BITS 5
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_MSB 39
#define HIST_BUCKETS ((HIST_MAX_MSB - HIST_SUB_BITS + 2) * HIST_SUB)

struct bhp_hist {
	bhp_u64 b[HIST_BUCKETS];
};

/* Per-path counters, a per-CPU array indexed by enum bhp_path. */
struct bhp_path_stats {
	bhp_u64 write_calls;	/* buffered write calls that returned */
	bhp_u64 write_bytes;
	bhp_u64 dio_calls;	/* O_DIRECT write calls */
	bhp_u64 dio_bytes;
	bhp_u64 write_errors;	/* calls that returned < 0 */
	bhp_u64 wb_calls;	/* writeback calls: do_writepages() over a
				 * mapping of the path (engine calls in files
				 * without RUN_F_WB_MAPPING) */
	bhp_u64 wb_pages;	/* pages handed to writeback */
	bhp_u64 bio_count;	/* write bios attributed to the path */
	bhp_u64 bio_bytes;
	bhp_u64 bh_alloc;	/* buffer_heads allocated in path context */
	/* fields below were added with reads; record files before them
	 * lack them (run_info.features says whether they were measured) */
	bhp_u64 read_calls;	/* read_folio and readahead calls */
	bhp_u64 read_pages;	/* pages they were asked to read */
	bhp_u64 read_bio_count;	/* read bios attributed to the path */
	bhp_u64 read_bio_bytes;
	bhp_u64 read_bh_alloc;	/* buffer_heads allocated while reading */
	bhp_u64 mkwrite_calls;	/* page_mkwrite faults */
	bhp_u64 dwf_calls;	/* O_DIRECT writes that fell back to buffered */
	bhp_u64 dwf_bytes;	/* ... and the bytes the buffered path wrote */
	/* writeback passes over an inode: tracepoints, in every mode
	 * (run_info.features says whether they were measured) */
	bhp_u64 wb_passes;
	/* the engines under the writeback calls (fentry and kprobe): calls
	 * of each inside a do_writepages() of the path */
	bhp_u64 wb_eng_folio;	/* block_write_full_folio / _page */
	bhp_u64 wb_eng_mpage;	/* mpage_writepages / __mpage_writepages */
	bhp_u64 wb_eng_ext4;	/* ext4_writepages */
	bhp_u64 wb_eng_iomap;	/* iomap_writepages */
};

/* Whole-run counters, a per-CPU array with one entry. */
struct bhp_global_stats {
	bhp_u64 bh_alloc_total;	/* every buffer_head allocation */
	bhp_u64 bh_alloc_none;	/* ... outside any path context */
	bhp_u64 bio_count;	/* every write bio on a watched device */
	bhp_u64 bio_bytes;
	bhp_u64 ctx_lost;	/* context map full: events not attributed */
	bhp_u64 read_bio_count;	/* every read bio on a watched device */
	bhp_u64 read_bio_bytes;
	/* --callers only (zero without): allocations no row of callers
	 * holds (its map was full), and buffer_heads freed */
	bhp_u64 callers_lost;
	bhp_u64 bh_freed;
};

/* Per-device bios: per-CPU hash keyed by device and path. */
#define DEV_SIZE_SLOTS 48	/* log2 buckets of bio bytes */
#define MAX_DEVSTATS 1024

struct bhp_dev_key {
	bhp_u32 dev;	/* kernel dev_t: major << 20 | minor */
	bhp_u32 path;	/* enum bhp_path, PATH_NONE for unattributed */
};

struct bhp_dev_stats {
	bhp_u64 bios;		/* write bios */
	bhp_u64 bytes;
	bhp_u64 size_log2[DEV_SIZE_SLOTS];
	bhp_u64 read_bios;	/* read bios, added with reads */
	bhp_u64 read_bytes;
	bhp_u64 read_size_log2[DEV_SIZE_SLOTS];
};

/*
 * A CPU's device rows in front of the dev_stats hash: a per-CPU array
 * slot holds the row of the first (device, path) that hashed to it on
 * that CPU, found without a hashed lookup (about 40 ns a bio); userspace
 * adds each slot to the row of its key.
 */
#define DEV_SLOTS 64

struct bhp_dev_slot {
	struct bhp_dev_key key;
	bhp_u32 used;
	bhp_u32 pad;
	struct bhp_dev_stats s;
};

/* the BPF side counts reads through the write counters' shape */
_Static_assert(__builtin_offsetof(struct bhp_dev_stats, read_size_log2) -
		       __builtin_offsetof(struct bhp_dev_stats, read_bios) ==
		       __builtin_offsetof(struct bhp_dev_stats, size_log2),
	       "read counters of a device row mirror the write ones");

#define KDEV_MAJOR(d) ((d) >> 20)
#define KDEV_MINOR(d) ((d) & ((1u << 20) - 1))
#define KDEV_MKDEV(ma, mi) (((ma) << 20) | (mi))

/*
 * Per filesystem: a filesystem type (its super block's s_type) on a path.
 * Keyed by the kernel's struct file_system_type pointer, the name read
 * once, when a CPU first sees the key: per-CPU slots in front of a
 * per-CPU hash, as the device rows are kept.
 */
#define BHP_FS_NAME 16
#define BHP_FS_BDEV 1ull	/* a block device's own page cache */
#define FS_SLOTS 16
#define MAX_FS_ROWS 256

struct bhp_fs_key {
	bhp_u64 fs;	/* struct file_system_type *, BHP_FS_BDEV, or 0:
			 * no file (bios and buffer_heads no context claims) */
	bhp_u32 path;	/* enum bhp_path, PATH_NONE for other */
	bhp_u32 pad;
};

/* what a filesystem's row counts: the path counters of the same names */
struct bhp_fs_stats {
	bhp_u64 write_calls;
	bhp_u64 write_bytes;
	bhp_u64 dio_calls;
	bhp_u64 dio_bytes;
	bhp_u64 wb_calls;
	bhp_u64 wb_pages;
	bhp_u64 bio_count;
	bhp_u64 bio_bytes;
	bhp_u64 bh_alloc;
};

struct bhp_fs_val {
	struct bhp_fs_stats s;
	char name[BHP_FS_NAME];	/* s_type->name, "bdev", or "" */
};

struct bhp_fs_slot {
	struct bhp_fs_key key;
	bhp_u32 used;
	bhp_u32 pad;
	struct bhp_fs_val v;
};

/* Who opened a per-thread context: a write call or a writeback pass. */
enum bhp_ctx_src {
	SRC_BLKDEV_WRITE = 1,
	SRC_IOMAP_WRITE,
	SRC_GENERIC_WRITE,
	SRC_SYSCALL_WRITE,
	SRC_DO_WRITEPAGES,
	SRC_SYSCALL_SYNC,
	SRC_FLUSHER,
	/* read calls: each function its own, so that a nested one does not
	 * close its caller's context */
	SRC_READ_BH_FOLIO,
	SRC_READ_BH_RA,
	SRC_READ_EXT4_FOLIO,
	SRC_READ_EXT4_RA,
	SRC_READ_IOMAP_FOLIO,
	SRC_READ_IOMAP_RA,
	SRC_BLKDEV_READ,
	SRC_SYSCALL_READ,
	SRC_MKWRITE_BH,
	SRC_MKWRITE_EXT4,
	SRC_MKWRITE_IOMAP,
	SRC_PASS_INODE,		/* __writeback_single_inode(), any fs */
	SRC_PASS_EXT4,		/* ext4_writepages() outside one */
};

/*
 * Tracepoint mode: what a syscall stands in for, by number. Userspace
 * fills the table (sys_class[] in the BPF object) from its own list, so
 * a new syscall is one entry there; a new class is a value here and its
 * case in the programs of its probe group.
 */
enum bhp_sys_class {
	BHP_SYS_NONE = 0,
	BHP_SYS_WRITE,		/* a write call: fd first */
	BHP_SYS_SYNC_FD,	/* writeback of one file: fd first */
	BHP_SYS_SYNC,		/* writeback of no one file: sync, msync */
	BHP_SYS_READ,		/* a read call: fd first */
	/* a write call, where the write group runs on fentry or kprobes:
	 * the call is the paths' engines' to take over (blkdev_write_iter,
	 * iomap_file_buffered_write, generic_perform_write); one that
	 * none took (btrfs, fuse without its writeback cache) is the other
	 * group's */
	BHP_SYS_WRITE_OTHER,
};

/* above every syscall number of x86-64 (x32's carry bit 30: ignored) */
#define BHP_MAX_SYSCALL 1024

#define CTX_F_DIRECT 0x1
/* a write syscall's context, which a write engine's replaces: until one
 * does, no engine of either path has run the call */
#define CTX_F_PROV 0x2
/* iomap's engine ran inside the write syscall (tracepoint mode) */
#define CTX_F_IOMAP 0x4
/* the call's inode is a block device's: its path is its kernel's */
#define CTX_F_BDEV 0x8

struct bhp_ctx {
	bhp_u64 ts;
	bhp_u64 inode;	/* struct inode *, 0 for sync(2) */
	bhp_u32 src;	/* enum bhp_ctx_src */
	bhp_u32 path;	/* enum bhp_path of the inode, PATH_NONE if unknown */
	bhp_u32 flags;
	bhp_u32 dev;
	bhp_u32 pages;	/* pages a read call was asked for */
	bhp_u32 pad;
	bhp_u64 fs;	/* struct bhp_fs_key's fs of the inode */
};

/* A thread's outermost do_writepages(): when, its wbc and what was
 * left to write then, its path, and how deep the calls inside it nest. */
struct bhp_wb_entry {
	bhp_u64 ts;
	bhp_u64 wbc;
	long nr_to_write;
	bhp_u32 path;
	bhp_u32 depth;
	bhp_u64 fs;	/* struct bhp_fs_key's fs of the mapping's inode */
};

/*
 * A thread's state, keyed by pid_tgid: one context of each kind (a kind
 * nests with the others, not with itself: outermost wins) and its
 * timed writeback call.
 */
enum bhp_ctx_kind {
	CTX_WRITE,	/* write calls */
	CTX_WB,		/* writeback passes: do_writepages, sync syscalls */
	CTX_READ,	/* read_folio / readahead calls, timed */
	CTX_RCALL,	/* the read call around them: O_DIRECT read bios */
	CTX_MK,		/* page_mkwrite faults */
	CTX_PASS,	/* a timed writeback pass over an inode */
	NR_CTX_KINDS,
};

struct bhp_thread {
	struct bhp_ctx ctx[NR_CTX_KINDS];
	struct bhp_wb_entry wb;
};

#define MAX_THREADS 16384

/*
 * A thread's slot in front of the threads hash, direct-mapped by thread
 * id (THREAD_SLOTS a power of two): found by an array lookup, which the
 * verifier inlines, where the hash costs a hashed one, about 40 ns, five
 * times a write. A thread whose slot another holds keeps its entry in
 * the hash.
 */
#define THREAD_SLOTS 4096

struct bhp_thread_slot {
	bhp_u64 owner;	/* the holder's pid_tgid, 0 for none */
	struct bhp_thread t;
};

/* -d: devices a run may be narrowed to (the BPF side scans them), and
 * as many anonymous devices of filesystems on them (btrfs's) */
#define BHP_MAX_FILTER_DEVS 16
#define BHP_MAX_DEV_MATCH (2 * BHP_MAX_FILTER_DEVS)
#define MAX_FS_TYPES 64
/* the page-cache helpers that tell a path (block_dirty_folio,
 * iomap_release_folio, ...), and the operations tables judged by them */
#define MAX_PATH_HELPERS 64
#define MAX_AOPS 1024

/*
 * --callers: allocations counted by call chain, owner and path context.
 * A chain is a stack id of callers_stacks (BHP_STACK_LOST when the stack
 * map had no room: still counted, under no chain).
 */
#define BHP_MAX_STACKS 4096
#define BHP_MAX_CALLERS 4096
#define BHP_STACK_DEPTH 32	/* frames kept per chain */
#define BHP_STACK_LOST 0xffffffffu

/* what kind of page cache the buffers were given to */
enum bhp_owner_kind {
	OWNER_NONE = 0,	/* no folio known (jbd2's copies, tracepoints) */
	OWNER_FILE = 1,	/* a file's own page cache: dev is its sb's */
	OWNER_BDEV = 2,	/* a block device's page cache: dev is the disk */
};

/* the path context an allocation came in */
enum bhp_where {
	WHERE_NONE = 0,
	WHERE_WRITE = 1,	/* write call or writeback */
	WHERE_READ = 2,
	WHERE_MKWRITE = 3,
	NR_WHERE = 4,
};

struct bhp_caller_key {
	bhp_u32 stack;	/* stack id, or BHP_STACK_LOST */
	bhp_u32 dev;	/* kernel dev_t of the owner, 0 if unknown */
	bhp_u32 kind;	/* enum bhp_owner_kind */
	bhp_u32 where;	/* enum bhp_where */
};

/* the owner of the buffers a thread is allocating now */
struct bhp_owner {
	bhp_u32 dev;
	bhp_u32 kind;
};

/* Linux's S_IFMT values; vmlinux.h carries no macros. */
#define BHP_S_IFMT 0170000
#define BHP_S_IFBLK 0060000
#define BHP_S_IFREG 0100000

#endif /* BHPROF_H */
