/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bios: the block_bio_queue tracepoint in every mode.
 *
 * Included by bhprof.bpf.c: one object.
 */
#ifndef BHPROF_BIO_BPF_H
#define BHPROF_BIO_BPF_H

/*
 * The path of the inode whose page cache holds a bio's first page, bv. A
 * page comes typed from the bio: plain loads all the way to the inode of
 * a head or order-0 page. Only when that finds none is compound_head
 * probe-read (a union the verifier would type as a pointer), to tell a
 * tail page, whose mapping field is not a mapping and so names no
 * owner, from anonymous or slab memory.
 */
static __always_inline __u32 bio_owner_path(struct bio_vec *bv, __u64 *fs)
{
	struct inode *owner;
	struct page *pg;
	unsigned long info;
	__u32 dev = 0;
	__u16 mode;

	if (!bv)
		return PATH_NONE;
	pg = bv->bv_page;
	if (!pg)
		return PATH_NONE;
	owner = page_owner_typed(pg);
	if (owner) {
		mode = owner->i_mode;
		*fs = inode_fs_typed(owner, mode);
		return inode_path_typed(owner, mode, &dev);
	}
	info = page_info(pg);
	if (!(info & 1))
		return PATH_NONE;
	owner = page_owner(tail_head(bv, info, head_is_mask));
	if (!owner)
		return PATH_NONE;
	mode = BPF_CORE_READ(owner, i_mode);
	*fs = inode_fs_mode(owner, mode);
	return inode_path_mode(owner, mode, &dev);
}

/* what a bio's own pages say: a value past every enum bhp_path */
#define BIO_OWNER 0xffu

/* A write bio: the path of an O_DIRECT write call (and its file's
 * filesystem in fs), none outside a write or writeback context, else
 * BIO_OWNER. */
static __always_inline __u32 bio_path(__u64 *fs)
{
	struct bhp_thread *t = thread_of(bpf_get_current_pid_tgid());
	struct bhp_ctx *w = ctx_in(t, CTX_WRITE);

	if (w && (w->flags & CTX_F_DIRECT)) {
		*fs = w->fs;
		return w->path;
	}
	if (!w && !ctx_in(t, CTX_WB))
		return PATH_NONE;
	return BIO_OWNER;
}

/* the zero row is too large for the BPF stack: a per-CPU scratch */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bhp_dev_stats);
} dev_zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DEV_SLOTS);
	__type(key, __u32);
	__type(value, struct bhp_dev_slot);
} dev_slots SEC(".maps");

/* key's row in this CPU's slot for it, taken if free, else NULL */
static __always_inline struct bhp_dev_stats *dev_slot(struct bhp_dev_key *key)
{
	__u32 k = (key->dev ^ (key->dev >> 20) ^ (key->path << 3)) &
		  dev_slot_mask & (DEV_SLOTS - 1);
	struct bhp_dev_slot *sl = bpf_map_lookup_elem(&dev_slots, &k);

	if (!sl)
		return NULL;
	if (!sl->used) {
		/* only this CPU's programs write its copy, one at a time */
		sl->key = *key;
		sl->used = 1;
	}
	if (sl->key.dev != key->dev || sl->key.path != key->path)
		return NULL;
	return &sl->s;
}

static __always_inline struct bhp_dev_stats *dev_row(struct bhp_dev_key *key)
{
	struct bhp_dev_stats *ds = dev_slot(key), *z;
	__u32 zero = 0;

	if (ds)
		return ds;
	ds = bpf_map_lookup_elem(&dev_stats, key);
	if (ds)
		return ds;
	z = bpf_map_lookup_elem(&dev_zero, &zero);
	if (!z)
		return NULL;
	bpf_map_update_elem(&dev_stats, key, z, BPF_NOEXIST);
	return bpf_map_lookup_elem(&dev_stats, key);
}

/*
 * A read bio belongs to the path of the inode whose page cache it fills
 * (BIO_OWNER), when a read call or read function is under way on the
 * thread; an O_DIRECT read's to the file read.
 */
static __always_inline __u32 read_bio_path(void)
{
	struct bhp_thread *t = thread_of(bpf_get_current_pid_tgid());
	struct bhp_ctx *c = ctx_in(t, CTX_READ);

	if (!c) {
		c = ctx_in(t, CTX_RCALL);
		if (!c)
			return PATH_NONE;
		if (c->flags & CTX_F_DIRECT)
			return c->path;
	}
	return BIO_OWNER;
}

/*
 * Of a pair of u64 counters in *obj, the write one (wf) or the read one
 * (rf), by arithmetic on read (0 or 1) rather than a test: each test on
 * read doubled the paths the verifier walked through the rest of the
 * bio program, about 100 ms at every start.
 */
#define PICK(obj, read, wf, rf)                                            \
	((__u64 *)((char *)(obj) + __builtin_offsetof(typeof(*(obj)), wf) + \
		   (read) * (__builtin_offsetof(typeof(*(obj)), rf) -       \
			     __builtin_offsetof(typeof(*(obj)), wf))))

/*
 * One bio, write or read, on the device, its path and in all. A device
 * row keeps the read counters in the same shape right after the write
 * ones (bios, bytes, size slots).
 */
static __always_inline void bio_account(struct bio_vec *bv, __u32 dev,
					__u32 size, __u64 read)
{
	struct bhp_dev_key key = { .dev = dev };
	struct bhp_global_stats *g = glob();
	struct bhp_path_stats *ps;
	struct bhp_dev_stats *ds;
	struct bhp_fs_stats *fs;
	__u64 fs_key = 0;
	/* 64-bit: the 6.1 verifier loses the bound of a 32-bit index that
	 * the compiler widens again after the test */
	__u64 slot = bhp_log2(size);
	__u64 *row;

	if (g) {
		*PICK(g, read, bio_count, read_bio_count) += 1;
		*PICK(g, read, bio_bytes, read_bio_bytes) += size;
	}
	key.path = read ? read_bio_path() : bio_path(&fs_key);
	/* one place for the owner's walk: its typed loads cost the verifier
	 * dearly in every state that reaches them */
	if (key.path == BIO_OWNER)
		key.path = bio_owner_path(bv, &fs_key);
	/* a directory's or a symlink's pages: other, as unclaimed bios */
	if (key.path > PATH_NONE)
		key.path = PATH_NONE;
	ds = dev_row(&key);
	if (ds) {
		row = PICK(ds, read, bios, read_bios);
		row[0]++;
		row[1] += size;
		if (slot < DEV_SIZE_SLOTS)
			row[2 + slot]++;
	}
	/* the filesystems' rows keep write bios: an unclaimed one is no
	 * file's (fs_key 0) */
	fs = read ? NULL : fs_row(fs_key, key.path);
	if (fs) {
		fs->bio_count++;
		fs->bio_bytes += size;
	}
	ps = pstats(key.path);
	if (!ps)
		return;
	*PICK(ps, read, bio_count, read_bio_count) += 1;
	*PICK(ps, read, bio_bytes, read_bio_bytes) += size;
	hist_add(key.path, HIST_BIO_SIZE +
			   read * (HIST_READ_BIO_SIZE - HIST_BIO_SIZE), size);
}

/* the bio's device before 5.12 ("block: add a bi_bdev field to struct
 * bio"): its disk and partition number */
struct bio___disk {
	struct gendisk *bi_disk;
	__u8 bi_partno;
} __attribute__((preserve_access_index));

static __always_inline __u32 bio_dev_t(struct bio *bio)
{
	struct bio___disk *old = (void *)bio;
	struct gendisk *d;

	if (bpf_core_field_exists(bio->bi_bdev))
		return bio->bi_bdev->bd_dev;
	d = old->bi_disk;
	return KDEV_MKDEV((__u32)d->major,
			  (__u32)d->first_minor + old->bi_partno);
}

static __always_inline int bio_queued(struct bio *bio)
{
	__u32 dev, size, op;

	FAULT_POINT(BHP_GROUP_BIO);
	/* tp_btf hands a typed pointer: plain loads, each far cheaper than
	 * a bpf_probe_read_kernel() call, on the hottest program we have */
	op = bio->bi_opf & 0xff;
	if (op != REQ_OP_WRITE && op != REQ_OP_READ)
		return 0;
	size = bio->bi_iter.bi_size;
	if (!size)
		return 0;
	dev = bio_dev_t(bio);
	if (!dev_ok(dev))
		return 0;
	/* loaded once, here: each pointer loaded off the trusted bio costs
	 * the verifier of 6.4 and later a name search through the kernel's
	 * BTF, about 2 ms, in every state that reaches the load */
	bio_account(bio->bi_io_vec, dev, size, op == REQ_OP_READ);
	return 0;
}

SEC("?tp_btf/block_bio_queue")
int BPF_PROG(tp_bio_queue, struct bio *bio)
{
	return bio_queued(bio);
}

/* the event's arguments before 5.11 ("block: remove the request_queue
 * argument to the block_bio_queue tracepoint"): the queue first */
SEC("?tp_btf/block_bio_queue")
int BPF_PROG(tp_bio_queue_q, struct request_queue *q, struct bio *bio)
{
	return bio_queued(bio);
}

#endif /* BHPROF_BIO_BPF_H */
