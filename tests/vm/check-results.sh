#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Asserts what must hold for one kernel of the VM matrix and prints the
# figures behind each assertion.
#
# usage: check-results.sh KERNEL_IMAGE OUTDIR
#   OUTDIR is what run-kernel.sh left (status, results/).
# Writes OUTDIR/checks.tsv (one assertion a line: PASS|FAIL, kernel, mode,
# scenario, check, figures) and OUTDIR/rows.tsv (one matrix row per
# mode x scenario), prints every FAIL and the figures, and exits 1 if any
# assertion failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: check-results.sh KERNEL_IMAGE OUTDIR"
img=$1
out=$2
res=$out/results
kname=$(kernel_suffix "$img")
cfg=$(kernel_config "$img") || die "no config beside $img"
eval "$(kernel_facts "$cfg")"
checks=$out/checks.tsv
rows=$out/rows.tsv
: > "$checks"
: > "$rows"

# record PASS|FAIL MODE SCENARIO CHECK DETAIL
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$kname" "$2" "$3" "$4" "$5" >> "$checks"
}

status=$(cat "$out/status" 2>/dev/null || echo MISSING)
case $status in
OK) record PASS - - boot "booted, results back in $(cat "$out/elapsed")s" ;;
*)
	record FAIL - - boot "$status after $(cat "$out/elapsed" 2>/dev/null)s: see $out/console.log"
	tail -n 20 "$out/console.log" 2>/dev/null | sed 's/^/    console: /' >&2
	;;
esac
[ -f "$res/vm.conf" ] || { awk -F'\t' '$1 == "FAIL"' "$checks"; exit 1; }
. "$res/vm.conf"

# ---- bhprof probe ----------------------------------------------------
probe=$res/probe.json
if [ "$(cat "$res/probe.rc" 2>/dev/null)" = 0 ] && jq -e . "$probe" >/dev/null 2>&1; then
	record PASS - probe ran "bhprof probe --json exit 0"
	want_bh=$([ "$K_BH" = 1 ] && echo true || echo false)
	got_bh=$(jq -r '.kernel.buffer_head' "$probe")
	if [ "$got_bh" = "$want_bh" ]; then
		record PASS - probe buffer_head "kernel.buffer_head=$got_bh as the config says"
	else
		record FAIL - probe buffer_head "kernel.buffer_head=$got_bh, config says $want_bh"
	fi
	pr() { jq -r --arg n "$1" '.probes[] | select(.name == $n) | .'"$2" "$probe"; }
	wbm=$(pr writeback_bh mode) wbf=$(pr writeback_bh func) wbd=$(pr writeback_bh detail)
	bam=$(pr bh_alloc mode)
	if [ "$K_BH" = 1 ]; then
		if [ "$wbf" = "$K_BH_WB" ] && [ "$wbm" != absent ] && [ "$wbm" != none ]; then
			record PASS - probe writeback_bh "$wbf attached by $wbm"
		else
			record FAIL - probe writeback_bh "want $K_BH_WB attached, got func=$wbf mode=$wbm ($wbd)"
		fi
	else
		if [ "$wbm" = absent ]; then
			record PASS - probe writeback_bh "absent ($wbd)"
		else
			record FAIL - probe writeback_bh "want absent (not failed), got mode=$wbm func=$wbf ($wbd)"
		fi
		if [ "$bam" = absent ]; then
			record PASS - probe bh_alloc "absent"
		else
			record FAIL - probe bh_alloc "want absent, got $bam"
		fi
	fi
	wim=$(pr writeback_iomap mode)
	if [ "$wim" = fentry ] || [ "$wim" = kprobe ]; then
		record PASS - probe writeback_iomap "iomap_writepages attached by $wim"
	else
		record FAIL - probe writeback_iomap "iomap_writepages: mode=$wim ($(pr writeback_iomap detail))"
	fi
else
	record FAIL - probe ran "rc=$(cat "$res/probe.rc" 2>/dev/null): $(head -c 300 "$res/probe.err" 2>/dev/null)"
fi

# ---- auto mode: the best mode the kernel allows, said in the recording --
# fentry where the config has direct-call ftrace, kprobes where not
# (Debian's arm64 6.1); the recording keeps the machine and page size.
# A module's function where modules have no BTF (before 5.11) is on
# kprobes beside fentry, as its probe's detail says (src/collect/plan.c:
# "fentry on FUNC: no BTF in its module")
KP_ALONE_JQ='def kp_alone($n; $mode): $mode == "fentry" and
  ([ .probes[]? | select(.name == $n) | .detail |
     test("fentry on [^;]*: no BTF in its module") ] | any);'
arep=$res/auto-report.json
want_mode=tracepoint
case " $K_MODES " in
*" fentry "*) want_mode=fentry ;;
*" kprobe "*) want_mode=kprobe ;;
esac
want_machine=$([ "$K_ARCH" = arm64 ] && echo aarch64 || echo x86_64)
if [ "$(cat "$res/auto.rc" 2>/dev/null)" = 0 ] && jq -e . "$arep" >/dev/null 2>&1; then
	got=$(jq -r '.attach.writeback_iomap' "$arep")
	pmode=$(jq -r '.probes[] | select(.name == "writeback_iomap") | .mode' "$probe" 2>/dev/null)
	if [ "$got" = "$want_mode" ] && [ "$pmode" = "$want_mode" ] &&
	   ! jq -e --arg w "$want_mode" "$KP_ALONE_JQ"'. as $r | [.attach | to_entries[] | select(.key != "bio" and (.key | startswith("pass_") | not)) |
		.key as $k | select(.value != "kprobe" or ($r | kp_alone($k; $w) | not)) | .value] |
		any(. != $w and . != "absent" and . != "none")' "$arep" >/dev/null; then
		record PASS - auto attach "probe and the recording: every probe $want_mode or absent, or on kprobes where its module has no BTF (modes here: $K_MODES)"
	else
		record FAIL - auto attach "want $want_mode: probe says $pmode, recording $(jq -c .attach "$arep")"
	fi
	km=$(jq -r '"\(.kernel.machine) \(.kernel.page_size)"' "$arep")
	if [ "$km" = "$want_machine $K_PAGE_SIZE" ]; then
		record PASS - auto machine "recording: $km, as the config says"
	else
		record FAIL - auto machine "recording says '$km', config $want_machine $K_PAGE_SIZE"
	fi
else
	record FAIL - auto ran "rc=$(cat "$res/auto.rc" 2>/dev/null): $(head -c 300 "$res/auto.err" 2>/dev/null)"
fi

# ---- giving up root once attached (src/util/priv.c) --------------------------
priv=$(cat "$res/priv.txt" 2>/dev/null)
if [ "$(cat "$res/priv.rc" 2>/dev/null)" = 0 ] && [ -n "$priv" ]; then
	record PASS - priv dropped "${priv#bhprof: }"
else
	record FAIL - priv dropped "rc=$(cat "$res/priv.rc" 2>/dev/null): $(grep -v libbpf "$res/priv.err" 2>/dev/null | head -c 300)"
fi

# ---- one stat run per mode x scenario ----------------------------------
# diskstats -> {"maj:min": {"name", "sect", "rsect"}} (sectors written, read)
ds_json() {
	awk 'BEGIN { printf "{"; sep = "" }
	     { printf "%s\"%s:%s\":{\"name\":\"%s\",\"sect\":%s,\"rsect\":%s}", sep, $1, $2, $3, $10, $6; sep = "," }
	     END { print "}" }' "$1"
}

# block_bio_queue lines of a tracefs dump -> {"maj:min": {count, bytes}}
# of write bios with data (the rwbs has a W, the size is not 0), "r":
# the same of read bios (the rwbs starts with R), plus "overrun": events
# the trace buffer dropped
trace_json() {
	awk -v stats="$2" -v bhtraced="$3" '
	/ kmem_cache_alloc: / { bh++; if (!marked) bhl++; next }
	/ kmem_cache_free: / { bhf++; if (!marked) bhfl++; next }
	/bhprof-mark load/ { marked = 1; next }
	{ for (i = 1; i < NF; i++) if ($i == "block_bio_queue:") break
	  if (i >= NF) next
	  dev = $(i + 1); sub(",", ":", dev); rwbs = $(i + 2); n = $(i + 5)
	  if (n + 0 == 0) next
	  if (rwbs ~ /^R/) { rc[dev]++; rb[dev] += n * 512; next }
	  if (rwbs !~ /W/) next
	  c[dev]++; b[dev] += n * 512 }
	END {
	  over = 0
	  while ((getline l < stats) > 0) if (l ~ /^overrun:/) { split(l, a, " "); over += a[2] }
	  printf "{\"overrun\":%d,\"bh\":%d,\"bh_traced\":%s", over, bh, bhtraced
	  printf ",\"bhfree\":%d,\"bh_load\":%d,\"bhfree_load\":%d,\"marked\":%s", bhf, bhl, bhfl, (marked ? "true" : "false")
	  for (d in c) printf ",\"%s\":{\"count\":%d,\"bytes\":%d}", d, c[d], b[d]
	  printf ",\"r\":{"; sep = ""
	  for (d in rc) { printf "%s\"%s\":{\"count\":%d,\"bytes\":%d}", sep, d, rc[d], rb[d]; sep = "," }
	  print "}}" }' "$1"
}

# The kernel's writeback passes and iomap read calls of a tracefs dump
# (tests/lib/trace-passes.awk) -> {"passes", "ext4", "reads"}, or null
# when guest-init.sh could not enable the writeback events; those of the
# devices "MAJ:MIN ..." alone when given
pass_json() {
	grep -q '^writeback/writeback_single_inode$' "$res/pass-events.txt" 2>/dev/null ||
		{ echo null; return; }
	awk -v devs="${2:-}" -f "$REPO_ROOT/tests/lib/trace-passes.awk" "$1" |
		awk '{ printf "{\"passes\":%d,\"ext4\":%d,\"reads\":%d}\n", $2, $4, $6 }'
}

# kprobe_profile lines "EVENT HITS" -> {"function": hits}
kp_json() {
	awk 'BEGIN { printf "{"; sep = "" }
	     NF >= 2 { printf "%s\"%s\":%s", sep, $1, $2; sep = "," }
	     END { print "}" }' "$1"
}

# Facts of one run and the assertions on them, as JSON.
RUN_JQ="$KP_ALONE_JQ"'
def kp($f): $kp[$f] // 0;
# exfat'"'"'s and NTFS'"'"'s path is the kernel'"'"'s to give (buffer heads to
# 6.x, iomap in 7.x), and vfat'"'"'s: the engine their write calls ran, by
# the kernel'"'"'s own count
def enginepath:
  if kp("iomap_file_buffered_write") > 0 then "iomap"
  elif kp("generic_perform_write") > 0 then "bh" else "none" end;
# a FUSE file (memfuse: no disk under it, its data goes to the server)
def fusew($w): $w.path | startswith("/mnt/fuse/");
# ... mounted with the kernel'"'"'s writeback cache (fuse-wbc-file): the
# only FUSE writes that dirty pages
def fusewbc: $scen | startswith("fuse-wbc-");
# ... whose path is iomap'"'"'s where fuse hands its writes to
# iomap_file_buffered_write (its writeback cache, 7.x), by the kernel'"'"'s
# own count, else none: fuse_perform_write, or generic_perform_write
# with fuse'"'"'s own write_begin (no buffer heads), are the other group'"'"'s
def fusepath: if kp("iomap_file_buffered_write") > 0 then "iomap" else "other" end;
def pathof($w):
  if $w.blockdev then (if $bh == 1 then "bh" else "iomap" end)
  elif ($w.path | startswith("/mnt/ext4")) then "bh"
  elif ($w.path | startswith("/mnt/xfs")) then "iomap"
  elif ($w.path | test("^/mnt/(exfat|vfat|ntfs)/")) then enginepath
  elif fusew($w) then fusepath
  else "other" end;
# the units a write was cut into: the blocks of its device or filesystem
# (buffer_heads) and the pages of its page cache (writeback)
# the filesystem a writer wrote through, as the kernel names it: its
# mount'"'"'s type in /proc/mounts, a block device'"'"'s own page cache "bdev"
def fsof($w):
  if $w.blockdev then "bdev"
  else ([ $mounts | to_entries[] | select(.key as $m | $w.path | startswith($m + "/")) ] |
        max_by(.key | length) | .value) // "?" end;
def fsum($rows; f): [ $rows[] | f // 0 ] | add // 0;
def units($w; $u): (((($w.offset + $w.bytes) + $u - 1) / $u | floor) - (($w.offset / $u) | floor));
def blocks($w): units($w; $w.bsize // 4096);
def pages($w): units($w; $pgsz);
def pct($a; $b): if $b == 0 then (if $a == 0 then 0 else 100 end) else (($a - $b) / $b * 100) end;
def chk($name; $ok; $detail): {name: $name, ok: $ok, detail: $detail};
def mib: . / 1048576 * 100 | round / 100;
def nz: . // 0;

def op: .op // "write";
# bhprof counted got of the kernel'"'"'s want: all of them, or short by no
# more than the runs of its programs the kernel said it skipped (kprobe
# programs are, while another BPF program holds the CPU)
def short_ok($got; $want): $got <= $want and $got >= $want - $skipped;
# the kernel'"'"'s own count of a path'"'"'s read and page_mkwrite calls
# (the page names up to 5.18)
def kread($p): if $p == "bh" then kp("block_read_full_folio") + kp("mpage_readahead") + kp("ext4_read_folio") + kp("ext4_readahead")
                 + kp("block_read_full_page") + kp("ext4_readpage")
               else kp("iomap_read_folio") + kp("iomap_readahead") + kp("iomap_readpage") end;
# ... and of the writeback engines, by bhprof'"'"'s names: each function
# where the kernel has it (mpage_writepages is __mpage_writepages'"'"'
# inline wrapper in 7.x), null where the scenario took no kprobe counts
def kengines: if ($kp | has("do_writepages")) then {
    block_write_full_folio: (kp("block_write_full_folio") + kp("block_write_full_page")),
    mpage_writepages: (if $kp | has("__mpage_writepages") then kp("__mpage_writepages") else kp("mpage_writepages") end),
    ext4_writepages: kp("ext4_writepages"), iomap_writepages: kp("iomap_writepages") } else null end;
def kmkwrite($p): if $p == "bh" then (if kp("ext4_page_mkwrite") > 0 then kp("ext4_page_mkwrite") else kp("block_page_mkwrite") end)
                  else kp("iomap_page_mkwrite") end;
# a pass over a FUSE file on neither path is no path'"'"'s: bhprof'"'"'s pass
# group counts none, the kernel'"'"'s trace every one ($fpref: the passes
# over the FUSE mounts'"'"' bdi alone)
($pref | if . != null and $fpref != null and fusepath == "other"
         then .passes -= $fpref.passes else . end) as $pref |
$stat as $s |
($writers | map(select(op == "read") | . + {p: pathof(.)})) as $rs |
($writers | map(select(op != "read"))) as $ws |
($ws | map(. + {p: pathof(.), blocks: blocks(.), pages: pages(.), fuse: fusew(.)})) as $ws |
([ "bh", "iomap" ] | map({key: ., value: (. as $p | $ws | map(select(.p == $p)) | {
    wcalls: (map(select(op == "write" and (.direct | not)) | .calls) | add // 0),
    wbytes: (map(select(op == "write" and (.direct | not)) | .bytes) | add // 0),
    dcalls: (map(select(op == "write" and .direct) | .calls) | add // 0),
    dbytes: (map(select(op == "write" and .direct) | .bytes) | add // 0),
    blocks: (map(select(op == "write" and (.direct | not)) | .blocks) | add // 0),
    bsize: (map(select(.blockdev) | .bsize // 4096) | max // 4096),
    mbytes: (map(select(op == "mmap") | .bytes) | add // 0),
    # (FUSE writers send no bio: they are left out of the bios)
    bbytes: (map(select(op == "write" and (.fuse | not)) | .bytes) | add // 0),
    nb: (map(select(.fuse | not)) | length),
    n: length })}) | from_entries) as $exp |
([ "bh", "iomap" ] | map({key: ., value: (. as $p | $rs | map(select(.p == $p)) | {
    bytes: (map(.bytes) | add // 0),
    buffered: (map(select(.direct | not) | .bytes) | add // 0),
    n: length })}) | from_entries) as $rexp |
{
  mode: $mode, scenario: $scen,
  figures: {
    paths: ($s.paths // {}), other: $s.other,
    bh_alloc_total: $s.bh_alloc_total, bh_alloc_unattributed: $s.bh_alloc_unattributed,
    lost: $s.lost, bio_total: $s.bio_total, attach: $s.attach,
    # (a FUSE file names an anonymous device, no disk)
    devices: [ $ws[] | select(.fuse | not) as $w | ($s.devices // [] | map(select(.dev == $w.dev)) | .[0]) as $d |
      { dev: $w.dev, name: ($d.name // "?"), path: $w.p, bytes_written: $w.bytes,
        bio_bytes: ($d.bio_bytes // 0), bio_count: ($d.bio_count // 0),
        paths: ($d.paths // {}),
        disk_bytes: ((($dsa[$w.dev].sect // 0) - ($dsb[$w.dev].sect // 0)) * 512),
        ref_count: $ref[$w.dev].count, ref_bytes: $ref[$w.dev].bytes } ] | unique_by(.dev),
    reads: [ $rs | group_by(.dev)[] | . as $g | $g[0] as $w |
      ($s.devices // [] | map(select(.dev == $w.dev)) | .[0]) as $d |
      { dev: $w.dev, name: ($d.name // "?"), path: $w.p, bytes_read: ($g | map(.bytes) | add),
        rbio_bytes: ($d.read_bio_bytes // 0), rbio_count: ($d.read_bio_count // 0),
        paths: ($d.paths // {}),
        disk_rbytes: ((($dsa[$w.dev].rsect // 0) - ($dsb[$w.dev].rsect // 0)) * 512),
        ref_count: ($ref.r[$w.dev].count // 0), ref_bytes: ($ref.r[$w.dev].bytes // 0) } ],
    trace_overrun: $ref.overrun,
    # the paths of the FUSE writers, which have no device above
    fuse_paths: ([ $ws[] | select(.fuse) | .p ] | unique),
    mmap: ($ws | any(op == "mmap")), racy: ($ws | any(.racer)),
    ref: { bh: $ref.bh, kp: $kp, passes: $pref.passes }, skipped: $skipped,
    expected: $exp, rexpected: $rexp
  }
} as $r |
# the kernel'"'"'s own bio counts (tracefs) on the devices each path wrote to
($r | .figures.ref += { paths: ([ "bh", "iomap" ] | map(. as $p | { key: $p, value: (
    [ $r.figures.devices[] | select(.path == $p) ] | if length == 0 then null else
      { bios: (map(.ref_count) | if any(. == null) then null else add end),
        bytes: (map(.ref_bytes) | if any(. == null) then null else add end) } end) }) | from_entries),
  rpaths: ([ "bh", "iomap" ] | map(. as $p | { key: $p, value: (
    [ $r.figures.reads[] | select(.path == $p) ] | if length == 0 then null else
      { bios: (map(.ref_count) | add), bytes: (map(.ref_bytes) | add),
        calls: kread($p) } end) }) | from_entries),
  mkwrite: ([ "bh", "iomap" ] | map({ key: ., value: kmkwrite(.) }) | from_entries),
  # the writeback that the flusher, jbd2 and fsync race for differs
  # from run to run: the kernel'"'"'s do_writepages() calls (every path'"'"'s)
  # and its engines are what bhprof'"'"'s calls are compared with
  wb_calls: (if $kp | has("do_writepages") then kp("do_writepages") else null end),
  wb_engines: kengines,
  fallback: $kp.direct_write_fallback }) as $r |
$r + { checks: (
  [ chk("ran"; ($rc == 0 and $s.command.exit_status == 0 and ($ws | length) + ($rs | length) > 0);
        "rc=\($rc) exit_status=\($s.command.exit_status) writers=\($ws | length) readers=\($rs | length)") ]
  # page_mkwrite and direct_write_fallback have no tracepoint: in
  # tracepoint mode they run in no mode ("none"), never "tracepoint";
  # kprobes stand in for fentry where the probe says why (KP_ALONE_JQ)
  + [ ($s.attach // {}) | to_entries[] | select(.key != "bio" and (.key | startswith("pass_") | not)) |
      ($mode == "tracepoint" and ((.key | startswith("mkwrite_")) or .key == "dio_fallback")) as $blind |
      .key as $k | (.value == "kprobe" and ($s | kp_alone($k; $mode))) as $kpa |
      chk("attach \(.key)"; (.value == "absent" or
            (if $blind then .value == "none" else .value == $mode or $kpa end));
          "\(.key)=\(.value)\(if $kpa then " (no BTF in its module)" else "" end)") ]
  + [ chk("attach bio"; ($s.attach.bio == "tracepoint"); "bio=\($s.attach.bio)") ]
  # ... and so do writeback passes, in every mode
  + [ ($s.attach // {}) | to_entries[] | select(.key | startswith("pass_")) |
      chk("attach \(.key)"; (.value == "tracepoint" or .value == "absent"); "\(.key)=\(.value)") ]
  + [ chk("no lost events"; ($s.lost == 0); "lost=\($s.lost)") ]
  + [ $r.figures.devices[] |
      chk("bytes vs diskstats \(.name)";
          (.disk_bytes > 0 and ((pct(.bio_bytes; .disk_bytes)) | fabs) <= 1);
          "bhprof \(.bio_bytes) B (\(.bio_bytes | mib) MiB, \(.bio_count) bios), diskstats \(.disk_bytes) B, \(pct(.bio_bytes; .disk_bytes) * 1000 | round / 1000)%") ]
  + [ $r.figures.devices[] |
      chk("bios vs kernel trace \(.name)";
          (.ref_count != null and .bio_count == .ref_count and .bio_bytes == .ref_bytes and $ref.overrun == 0);
          "bhprof \(.bio_count) bios \(.bio_bytes) B, tracefs block_bio_queue \(.ref_count) bios \(.ref_bytes) B (overrun \($ref.overrun))") ]
  + [ chk("bh allocations vs kernel trace";
          ($ref.bh != null and $s.bh_alloc_total == $ref.bh and $ref.overrun == 0);
          "bhprof \($s.bh_alloc_total), tracefs kmem_cache_alloc from alloc_buffer_head \($ref.bh)\(if $ref.bh_traced then "" else " (no such function: none possible)" end)") ]
  + [ $exp | to_entries[] | .key as $p | .value as $e | ($s.paths[$p] // {}) as $g |
      chk("\($p) write calls"; ($g.write.calls == $e.wcalls and $g.write.bytes == $e.wbytes);
          "got \($g.write.calls) calls \($g.write.bytes) B, wrote \($e.wcalls) calls \($e.wbytes) B"),
      chk("\($p) direct calls"; ($g.direct.calls == $e.dcalls and $g.direct.bytes == $e.dbytes);
          "got \($g.direct.calls) calls \($g.direct.bytes) B, wrote \($e.dcalls) calls \($e.dbytes) B"),
      (if $e.nb > 0 then
         chk("\($p) bios"; ($g.bio.bytes >= $e.bbytes);
             "\($g.bio.count) bios \($g.bio.bytes) B >= \($e.bbytes) B written")
       elif $e.n > 0 then
         # FUSE writers alone: their fs row holds none (below)
         empty
       else
         # ... but exFAT and NTFS keep their metadata (FAT or MFT,
         # bitmap, directory entries) in the block device'"'"'s buffer
         # heads on every kernel: a few KiB of bh bios beside their iomap
         # data on 7.x
         (if ($scen | test("^(exfat|ntfs|btrfs)-file$")) and $p == "bh" then
            chk("bh: metadata alone"; ($g.bio.bytes <= 65536 and $g.write.calls == 0);
                "no writer on bh: \($g.bio.count) bios of \($g.bio.bytes) B (\($scen | sub("-file"; "")) metadata), \($g.write.calls) calls")
          else
            chk("\($p) quiet"; ($g.bio.count == 0 and $g.bh_alloc == 0 and $g.write.calls == 0);
                "no writer on \($p): \($g.bio.count) bios, \($g.bh_alloc) bh, \($g.write.calls) calls")
          end)
       end) ]
  # files on neither path: the other group, whole (btrfs, FUSE)
  + [ ($ws | map(select(.p == "other" and op == "write"))) as $ow |
      select($ow | length > 0) | ($s.other // {}) as $o |
      ($ow | map(select(.direct | not))) as $bw |
      ($bw | map(.calls) | add // 0) as $wc | ($bw | map(.bytes) | add // 0) as $wb |
      # (-d takes block devices alone, and FUSE has none: the group then
      # holds the scenario'"'"'s own writes to tmpfs and tracefs too, and
      # the FUSE row below holds the writer to its calls exactly)
      (if $ow | all(.fuse) then
         chk("other write calls"; ($o.write.calls >= $wc and $o.write.bytes >= $wb);
             "got \($o.write.calls) calls \($o.write.bytes) B >= wrote \($wc) calls \($wb) B, the rest the scenario'"'"'s own (\($o.write_source))")
       else
         chk("other write calls"; ($o.write.calls == $wc and $o.write.bytes == $wb);
             "got \($o.write.calls) calls \($o.write.bytes) B, wrote \($wc) calls \($wb) B (\($o.write_source))")
       end),
      chk("other not on a path"; ([ $s.paths[].write.calls ] | add) == 0;
          "bh \($s.paths.bh.write.calls), iomap \($s.paths.iomap.write.calls) write calls"),
      # (a FUSE writer'"'"'s data goes to its server: its fs row holds no
      # bio, below)
      ($ow | map(select(.fuse | not))) as $dw |
      (select($dw | length > 0) |
       chk("other bios"; ($o.bio.bytes // 0) >= ($dw | map(.bytes) | add);
           "\($o.bio.count) bios \($o.bio.bytes) B >= \($dw | map(.bytes) | add) B written")),
      # ... and without its writeback cache dirties no page: it has no
      # writeback to look for
      ($bw | map(select((.fuse | not) or fusewbc))) as $cw |
      (select($cw | length > 0) |
       if $mode == "tracepoint" then
         chk("other writeback unseen"; $o.writeback == null; "writeback \($o.writeback | tojson)")
       else
         # (btrfs takes one from wbc->nr_to_write per folio, not per
         # page: 64 for 16 MiB in 7.2'"'"'s large folios; FUSE'"'"'s are
         # small before 7.x: one per page)
         ($cw | map(select(.fuse) | .pages) | add // 0) as $fpg |
         chk("other writeback"; ($o.writeback.calls >= 1 and $o.writeback.pages >= 1 and
                                 $o.writeback.pages >= $fpg);
             "\($o.writeback.calls) calls, \($o.writeback.pages) pages (folios) for \($cw | map(.pages) | add // 0) pages written\(if $fpg > 0 then ", \($fpg) of them FUSE'"'"'s" else "" end)")
       end) ]
  # a FUSE file: the path bhprof gave is the engine the kernel ran.
  # Without the writeback cache every write call runs fuse_perform_write
  # and none iomap'"'"'s: the other group'"'"'s, none on a path. With it,
  # never fuse_perform_write: iomap_file_buffered_write (7.x), or fuse'"'"'s
  # own write_begin under generic_perform_write (before: the other
  # group'"'"'s, whose count holds the scenario'"'"'s tmpfs writes too)
  + [ ($ws | map(select(.fuse and op == "write"))) as $fw | select($fw | length > 0) |
      ($fw | map(.calls) | add) as $c | $fw[0].p as $p |
      ([ "bh", "iomap" ] | map({ key: ., value: $s.paths[.].write.calls }) | from_entries
       + { other: $s.other.write.calls }) as $got |
      chk("fuse engine \($p)";
          (if fusewbc then
             kp("fuse_perform_write") == 0 and
             (if $p == "iomap" then kp("iomap_file_buffered_write") >= $c
              else kp("generic_perform_write") >= $c end)
           else
             kp("fuse_perform_write") >= $c and kp("iomap_file_buffered_write") == 0
           end) and
          (if $p == "other" then $got.other >= $c and $got.bh + $got.iomap == 0
           else $got[$p] == $c end);
          "kernel: fuse_perform_write \(if $kp | has("fuse_perform_write") then kp("fuse_perform_write") else "(no kprobe event)" end), iomap_file_buffered_write \(kp("iomap_file_buffered_write")), generic_perform_write \(kp("generic_perform_write")); bhprof: bh \($got.bh), iomap \($got.iomap), other \($got.other) write calls; wrote \($c) calls, \(if fusewbc then "with" else "without" end) the writeback cache: \($p)") ]
  # per filesystem: each writer'"'"'s write calls and bytes whole in the
  # row of its filesystem (by /proc/mounts) on its path, and its bios
  + [ select($s.filesystems | type == "array") | $s.filesystems as $fr |
      $ws | map(select(op == "write") | . + {fs: fsof(.)}) | group_by([.fs, .p])[] |
      .[0].fs as $fs | .[0].p as $p | . as $g |
      ($fr | map(select(.fs == $fs and .path == $p)) | .[0] // {}) as $row |
      ($g | map(select(.direct | not))) as $b | ($g | map(select(.direct))) as $o |
      chk("fs \($fs)/\($p) write calls";
          ($row.write.calls == ($b | map(.calls) | add // 0) and
           $row.write.bytes == ($b | map(.bytes) | add // 0) and
           $row.direct.calls == ($o | map(.calls) | add // 0) and
           $row.direct.bytes == ($o | map(.bytes) | add // 0));
          "row \($fs)/\($p): \($row.write.calls) calls \($row.write.bytes) B, direct \($row.direct.calls) \($row.direct.bytes) B; wrote \($b | map(.calls) | add // 0) calls \($b | map(.bytes) | add // 0) B, direct \($o | map(.calls) | add // 0) \($o | map(.bytes) | add // 0) B; rows \($fr | map("\(.fs)/\(.path)") | join(" "))"),
      (if $g | all(.fuse) then
         chk("fs \($fs)/\($p) no bios"; ($row.bio.count // 0) == 0 and ($row.bio.bytes // 0) == 0;
             "\($row.bio.count) bios \($row.bio.bytes) B: the server took the \($g | map(.bytes) | add) B written")
       else
         chk("fs \($fs)/\($p) bios"; ($row.bio.bytes // 0) >= ($g | map(.bytes) | add);
             "\($row.bio.count) bios \($row.bio.bytes) B >= \($g | map(.bytes) | add) B written")
       end) ]
  # ... and the rows of a path add up to the path, the rows of all to
  # every bio and every buffer_head allocated outside reads (a row keeps
  # none of those). The bios no context claims (a kernel thread'"'"'s) may
  # come up to 2 short of the other group: once in the matrix, on
  # Debian'"'"'s 7.2 arm64 under kprobes, 2 of them (512 B, 1 KiB) reached
  # the group and no row; never more, never over
  + [ select($s.filesystems | type == "array") | $s.filesystems as $fr |
      ("bh", "iomap", "other") as $p | ($fr | map(select(.path == $p))) as $rows |
      (if $p == "other" then ($s.other // {}) | { write, direct: .dio, bio, writeback }
       else $s.paths[$p] end) as $g |
      chk("fs rows of \($p) add up";
          (fsum($rows; .write.calls) == ($g.write.calls // 0) and
           fsum($rows; .write.bytes) == ($g.write.bytes // 0) and
           fsum($rows; .direct.calls) == ($g.direct.calls // 0) and
           fsum($rows; .direct.bytes) == ($g.direct.bytes // 0) and
           (($g.bio.count // 0) - fsum($rows; .bio.count)) as $short |
           ($short == 0 or ($p == "other" and $short > 0 and $short <= 2)) and
           fsum($rows; .bio.bytes) <= ($g.bio.bytes // 0) and
           ($short > 0 or fsum($rows; .bio.bytes) == ($g.bio.bytes // 0)) and
           ($g.writeback.pages == null or fsum($rows; .writeback.pages) == $g.writeback.pages) and
           ($g.writeback.calls == null or fsum($rows; .writeback.calls) == $g.writeback.calls) and
           ($p == "other" or fsum($rows; .bh_alloc) == $g.bh_alloc));
          "rows \($rows | map("\(.fs)=\(.write.calls)c/\(.bio.count)b/\(.writeback.pages)p/\(.bh_alloc)bh") | join(" ")); path \($g.write.calls)c/\($g.bio.count)b/\($g.writeback.pages)p/\($g.bh_alloc)bh") ]
  + [ select($s.filesystems | type == "array" and $s.bio_total != null) | $s.filesystems as $fr |
      ([ $s.paths[].read_bh_alloc // 0 ] | add // 0) as $rbh |
      ($s.bio_total.count - fsum($fr; .bio.count)) as $short |
      chk("fs rows: every bio and buffer_head";
          ($short >= 0 and $short <= 2 and fsum($fr; .bio.bytes) <= $s.bio_total.bytes and
           ($short > 0 or fsum($fr; .bio.bytes) == $s.bio_total.bytes) and
           fsum($fr; .bh_alloc) == $s.bh_alloc_total - $rbh);
          "rows \(fsum($fr; .bio.count)) bios \(fsum($fr; .bio.bytes)) B \(fsum($fr; .bh_alloc)) bh; all \($s.bio_total.count) bios \($s.bio_total.bytes) B, \($s.bh_alloc_total) bh less \($rbh) allocated reading") ]
  # ... and the bios of the three groups are every bio (each device'"'"'s
  # against diskstats above)
  + [ select($s.other != null and $s.bio_total != null) |
      ([ $s.paths.bh.bio.bytes, $s.paths.iomap.bio.bytes, $s.other.bio.bytes ] | add) as $b |
      ([ $s.paths.bh.bio.count, $s.paths.iomap.bio.count, $s.other.bio.count ] | add) as $n |
      chk("bh + iomap + other bios"; $b == $s.bio_total.bytes and $n == $s.bio_total.count;
          "bh \($s.paths.bh.bio.bytes) + iomap \($s.paths.iomap.bio.bytes) + other \($s.other.bio.bytes) = \($b) B in \($n) bios, all \($s.bio_total.bytes) B in \($s.bio_total.count)") ]
  # every written device: its bios went to the writer'"'"'s path
  + [ $r.figures.devices[] | . as $dv |
      chk("\(.name) on \(.path)"; ((.paths[.path].bio_bytes // 0) >= .bytes_written);
          "\(.name): \(.path) \(.paths[.path].bio_bytes // 0) B in \(.paths[.path].bio_count // 0) bios, other paths \([.paths | to_entries[] | select(.key != $dv.path) | "\(.key)=\(.value.bio_bytes)"] | join(" ")); wrote \(.bytes_written) B") ]
  # every buffered writer'"'"'s pages went through a writeback call of its
  # path: do_writepages() over its mapping, ext4'"'"'s and FAT'"'"'s as XFS'"'"'s
  # and a block device'"'"'s (tracepoint mode: wbc_writepage'"'"'s folios,
  # ext4'"'"'s own event, iomap'"'"'s)
  # (before 6.12 write_cache_pages took one from wbc->nr_to_write per
  # folio, so a mapping'"'"'s pages are folios there: a mapping'"'"'s large
  # folios are checked for at least one; a FUSE file without the
  # writeback cache dirties none)
  + [ $exp | to_entries[] | .key as $p |
      ($ws | map(select(.p == $p and (.direct | not) and ((.fuse | not) or fusewbc)))) as $wbw |
      select($wbw | length > 0) | ($s.paths[$p].writeback // {}) as $wb |
      ($wbw | map(if op == "mmap" and $folio_wb and $mode != "tracepoint" then 1 else .pages end) | add) as $pg |
      chk("\($p) writeback"; (($wb.calls == null or $wb.calls >= 1) and ($wb.pages // 0) >= $pg);
          "\($wb.calls) writeback calls, \($wb.pages) pages >= \($pg) \(if $pg < ($wbw | map(.pages) | add) then "(folios before 6.12)" else "pages of \($pgsz) B" end)") ]
  # ... and an engine ran under them: the functions of the path'"'"'s
  # writeback (block devices: block_write_full_folio or iomap_writepages;
  # ext4: ext4_writepages; FAT and exFAT on bh: mpage_writepages)
  + [ $exp | to_entries[] | .key as $p | ($s.paths[$p].writeback // {}) as $wb |
      select($mode != "tracepoint" and ($wb.calls // 0) > 0 and ($wb.pages // 0) > 0) |
      chk("\($p) writeback engines"; ([ $wb.engines[] ] | add) > 0;
          "\($wb.calls) calls over \($wb.pages) pages; engines \($wb.engines | tojson)") ]
  # ... the very functions the kernel ran, as many times (fentry and
  # kprobe mode; where the scenario took the kernel'"'"'s count)
  + [ select($mode != "tracepoint" and kengines != null) | kengines | to_entries[] | .key as $e |
      ([ $s.paths[]?.writeback.engines[$e] // 0 ] | add // 0) as $n |
      chk("writeback engine \($e) vs kernel"; short_ok($n; .value);
          "bhprof \($n) calls (all paths), kprobe event \(.value)") ]
  # what each mode can see: tracepoints have no writeback calls or
  # latency; every call seen has a latency
  + [ ("bh", "iomap") as $p | ($s.paths[$p] // {}) as $g |
      (if $s.attach["writeback_\($p)"] == "absent" then
        chk("\($p) writeback absent"; ($g.writeback.calls == 0 and $g.writeback.pages == 0);
            "no such function in this kernel: calls=\($g.writeback.calls) pages=\($g.writeback.pages)")
      elif $mode == "tracepoint" then
        chk("\($p) writeback unseen"; ($g.writeback.calls == null and $g.writeback.lat_ns == null);
            "tracepoint mode: writeback calls=\($g.writeback.calls), lat_ns=\($g.writeback.lat_ns | tojson)")
      else
        chk("\($p) writeback latency"; ($g.writeback.calls != null and ($g.writeback.lat_ns.count // 0) == $g.writeback.calls);
            "\($g.writeback.calls) calls, \($g.writeback.lat_ns.count) latencies, p50 \($g.writeback.lat_ns.p50) ns")
      end),
      # no call: no latency at all (null), never a zero
      chk("\($p) write latency"; (($g.write.lat_ns.count // 0) == $g.write.calls and ($g.write.calls == 0 or $g.write.lat_ns.p50 > 0))
          and (($g.direct.lat_ns.count // 0) == $g.direct.calls and ($g.direct.calls == 0 or $g.direct.lat_ns.p50 > 0))
          and ($g.write.calls > 0 or $g.write.lat_ns == null) and ($g.direct.calls > 0 or $g.direct.lat_ns == null);
          "write \($g.write.calls) calls/\($g.write.lat_ns.count) latencies p50 \($g.write.lat_ns.p50) ns, direct \($g.direct.calls)/\($g.direct.lat_ns.count) p50 \($g.direct.lat_ns.p50) ns") ]
  # buffer heads: one per block written on the bh path, none on iomap
  + [ select($exp.bh.wbytes > 0) | $s.paths.bh.bh_alloc as $n |
      chk("bh allocations"; ($n >= $exp.bh.blocks);
          "\($n) buffer_heads for \($exp.bh.blocks) blocks written (total \($s.bh_alloc_total), unattributed \($s.bh_alloc_unattributed))") ]
  + [ chk("iomap no bh"; ($s.paths.iomap.bh_alloc == 0); "iomap path bh_alloc=\($s.paths.iomap.bh_alloc)") ]
  + [ select($bh == 0) |
      chk("zero buffer_heads"; ($s.bh_alloc_total == 0); "bh_alloc_total=\($s.bh_alloc_total)") ]
  # bio sizes tell the paths apart on raw buffered writes
  + [ select($exp.iomap.wbytes > 0 and $bh == 0 and ($ws | all(.blockdev))) |
      $s.paths.iomap.bio.size_bytes.max as $m |
      chk("iomap bios > 1 block"; ($m > $exp.iomap.bsize); "largest iomap bio \($m) B, mean \($s.paths.iomap.bio.size_bytes.mean), block \($exp.iomap.bsize) B") ]
  + [ select($exp.bh.wbytes > 0 and $bh == 1 and ($ws | all(.blockdev and (.direct | not)))) |
      $s.paths.bh.bio as $b |
      chk("bh bios = 1 block"; ($b.size_bytes.max == $exp.bh.bsize and $b.count >= $exp.bh.blocks);
          "\($b.count) bh bios for \($exp.bh.blocks) blocks of \($exp.bh.bsize) B, largest \($b.size_bytes.max) B") ]
  # ---- reads: every read device against tracefs and diskstats
  + [ $r.figures.reads[] |
      chk("read bios vs kernel trace \(.name)";
          (.rbio_count == .ref_count and .rbio_bytes == .ref_bytes and .ref_count > 0 and $ref.overrun == 0);
          "bhprof \(.rbio_count) read bios \(.rbio_bytes) B, tracefs block_bio_queue R \(.ref_count) bios \(.ref_bytes) B (overrun \($ref.overrun))"),
      chk("read bytes vs diskstats \(.name)";
          (.disk_rbytes > 0 and ((pct(.rbio_bytes; .disk_rbytes)) | fabs) <= 1);
          "bhprof \(.rbio_bytes) B read, diskstats \(.disk_rbytes) B, \(pct(.rbio_bytes; .disk_rbytes) * 1000 | round / 1000)%"),
      chk("read \(.name) on \(.path)"; ((.paths[.path].read_bio_bytes // 0) >= .bytes_read);
          "\(.name): \(.path) \(.paths[.path].read_bio_bytes // 0) B in \(.paths[.path].read_bio_count // 0) read bios; read \(.bytes_read) B") ]
  + [ select(($rs | length) > 0) | $rexp | to_entries[] | .key as $p | .value as $e | ($s.paths[$p] // {}) as $g |
      if $e.n == 0 then
        chk("\($p) reads quiet"; ($g.read_bio.count == 0 and (($g.read.calls // 0) == 0));
            "no reader on \($p): \($g.read_bio.count) read bios, \($g.read.calls) read calls")
      else
        chk("\($p) read bios"; ($g.read_bio.bytes >= $e.bytes and (($g.read_bio.size_bytes.count // 0) == $g.read_bio.count));
            "\($g.read_bio.count) read bios \($g.read_bio.bytes) B >= \($e.bytes) B read, \($g.read_bio.size_bytes.count) sizes"),
        chk("\($p) read pages"; ($g.read.pages * $pgsz >= $e.buffered);
            "\($g.read.pages) pages asked for, \($e.buffered) B read through the page cache"),
        # tracepoint mode: iomap'"'"'s own events count its read calls
        # (no latency); no event of the bh path'"'"'s read functions does
        (if $mode == "tracepoint" and $p == "bh" then
           chk("\($p) read calls unseen"; ($g.read.calls == null and $g.read.lat_ns == null);
               "tracepoint mode: read calls=\($g.read.calls), lat_ns=\($g.read.lat_ns | tojson)")
         elif $mode == "tracepoint" then
           chk("\($p) read calls vs kernel"; (short_ok($g.read.calls; kread($p)) and ($e.buffered == 0 or $g.read.calls > 0)
                and $g.read.lat_ns == null and $g.read.calls == $pref.reads);
               "bhprof \($g.read.calls) calls (latency \($g.read.lat_ns | tojson)), kernel kprobes \(kread($p)), tracefs iomap_readpage/iomap_readahead \($pref.reads)")
         else
           chk("\($p) read calls vs kernel"; (short_ok($g.read.calls; kread($p)) and ($e.buffered == 0 or $g.read.calls > 0)
                and ($g.read.lat_ns.count // 0) == $g.read.calls);
               "bhprof \($g.read.calls) calls (\($g.read.lat_ns.count) latencies, p50 \($g.read.lat_ns.p50) ns), kernel kprobes \(kread($p))")
         end)
      end ]
  # ---- writeback passes over an inode: the pass group, on tracepoints
  # in every mode, against the same events in the kernel'"'"'s trace
  + [ [ $s.paths.bh.writeback, $s.paths.iomap.writeback ] as $pw |
      ($pw | map(.passes)) as $n |
      if $s.attach.pass_inode == "absent" then
        chk("passes absent"; ($n | all(. == null)); "no writeback_single_inode events in this kernel: \($n | tojson)")
      else
        chk("passes vs kernel trace"; ($pref != null and ($n | all(. != null)) and ($n | add) == $pref.passes and $ref.overrun == 0);
            "bhprof bh \($n[0]) + iomap \($n[1]), tracefs \($pref.passes // "not captured") passes\(if $fpref != null and fusepath == "other" then " (and \($fpref.passes) over a FUSE file, no path'"'"'s)" else "" end), \($pref.ext4) by ext4_writepages alone (overrun \($ref.overrun))"),
        chk("pass latency"; ($pw | all((.pass_lat_ns.count // 0) == .passes and (.passes == 0 or .pass_lat_ns.p50 > 0)));
            "bh \($pw[0].pass_lat_ns.count) latencies p50 \($pw[0].pass_lat_ns.p50) ns, iomap \($pw[1].pass_lat_ns.count) p50 \($pw[1].pass_lat_ns.p50) ns"),
        (select($ws | any(.p == "bh" and (.path | startswith("/mnt/ext4")))) |
         chk("ext4 passes seen"; ($pref.ext4 // 0) > 0 and $n[0] > 0;
             "ext4 fsyncs: \($pref.ext4) ext4_writepages passes alone, bhprof bh \($n[0])"))
      end ]
  # ---- page_mkwrite: a shared mapping'"'"'s writes, against kprobes
  + [ ($ws | map(select(op == "mmap")) | map(.p) | unique)[] as $p | ($s.paths[$p] // {}) as $g |
      if $mode == "tracepoint" then
        chk("\($p) mkwrite unseen"; ($g.mkwrite.calls == null and $g.mkwrite.lat_ns == null);
            "tracepoint mode: mkwrite calls=\($g.mkwrite.calls)")
      else
        chk("\($p) mkwrite vs kernel"; (short_ok($g.mkwrite.calls; kmkwrite($p)) and $g.mkwrite.calls > 0 and $g.mkwrite.lat_ns.count == $g.mkwrite.calls);
            "bhprof \($g.mkwrite.calls) page_mkwrite (\($g.mkwrite.lat_ns.count) latencies, p50 \($g.mkwrite.lat_ns.p50) ns), kernel kprobes \(kmkwrite($p))")
      end ]
  # ---- direct-write fallback: absent before 6.6 (unless backported),
  # unseen by tracepoints
  + [ select($ws | any(.racer)) | [ $s.paths.bh.dio_fallback, $s.paths.iomap.dio_fallback ] as $f |
      if $s.attach.dio_fallback == "absent" then
        chk("fallback absent"; ($f | all(.calls == null and .bytes == null)) and ($kp | has("direct_write_fallback") | not);
            "no direct_write_fallback in this kernel: calls \($f | map(.calls) | tojson)")
      elif $mode == "tracepoint" then
        chk("fallback unseen"; ($f | all(.calls == null)); "tracepoint mode: calls \($f | map(.calls) | tojson)")
      else
        ($f | map(.calls) | add) as $n | ($f | map(.bytes) | add) as $b |
        chk("fallback vs kernel"; (short_ok($n; kp("direct_write_fallback")) and $b == $n * 4096);
            "bhprof \($n) fallbacks of \($b) B, kernel kprobe direct_write_fallback \(kp("direct_write_fallback"))")
      end,
      (select($s.attach.dio_fallback != "absent") |
       chk("fallback happened"; (kp("direct_write_fallback") > 0);
           "the kernel fell back \(kp("direct_write_fallback")) times in \($ws | map(select(.racer) | .calls) | add) O_DIRECT writes")) ]
  # ---- --self-cost (scenario.opts): the programs'"'"' rows make the
  # whole, and ext4'"'"'s read functions'"'"' programs (in a module on
  # Debian'"'"'s kernels) ran once per call the kernel counted: their cost
  # per event
  + [ $s.overhead.programs // empty | . as $pr |
      chk("self-cost by program"; ($pr | map(.runs) | add) == $s.overhead.runs and ($pr | length) > 0;
          "\($pr | length) programs ran, \($s.overhead.runs) runs in all; the costliest \($pr[0].name) \($pr[0].ns_per_run | floor) ns each"),
      (select($mode != "tracepoint" and kp("ext4_read_folio") + kp("ext4_readahead") > 0) |
       [ $pr[] | select(.name | test("^(fe|fx|kp|kr)_ext4_read(_folio|ahead)$")) ] as $r |
       ([ $r[] | select(.name | test("^(fe|kp)_")) | .runs ] | add // 0) as $n |
       chk("self-cost ext4 reads vs kernel"; short_ok($n; kp("ext4_read_folio") + kp("ext4_readahead")) and $n > 0;
           "\($r | map("\(.name) \(.runs) runs \(.ns_per_run | floor) ns") | join(", ")); kernel kprobes \(kp("ext4_read_folio") + kp("ext4_readahead"))")) ]
  )
}
| . + { ok: (.checks | all(.ok)) }
| . + { row: (
    .figures as $f | (($f.devices + $f.reads | map(.path)) + $f.fuse_paths | unique) as $ps |
    # (the other group'"'"'s figures, for btrfs'"'"'s and FUSE'"'"'s rows)
    def grp($p): if $p == "other" then ($f.other // {}) | { write, direct: .dio, bio, writeback }
                 else $f.paths[$p] end;
    def sumf(f): [ $ps[] as $p | grp($p) | f ] | add // 0;
    { mode: $mode, scenario: $scen, result: (if .ok then "PASS" else "FAIL" end),
      path: ($ps | join("+")),
      wcalls: sumf((.write.calls // 0) + (.direct.calls // 0)),
      wbcalls: (if ([ $ps[] as $p | grp($p).writeback.calls ] | any(. == null)) then "-" else sumf(.writeback.calls) end),
      pages: sumf(.writeback.pages // 0),
      bios: sumf(.bio.count // 0),
      biomib: (sumf(.bio.bytes // 0) | mib),
      maxbio: ([ $ps[] as $p | grp($p).bio.size_bytes.max // 0 ] | max),
      bh: ($f.bh_alloc_total // 0),
      kbios: ([ $f.devices[].ref_count ] | if length == 0 then "-" elif any(. == null) then "?" else add end),
      kbh: ($f.ref.bh // "?"),
      rcalls: ([ $f.reads[].path ] | unique | if length == 0 then "-" else [ .[] as $p | $f.paths[$p].read.calls ] | if any(. == null) then "n/a" else add end end),
      rbios: ([ $f.reads[].rbio_count ] | add // 0),
      rmib: ([ $f.reads[].rbio_bytes ] | add // 0 | mib),
      rmax: ([ $f.reads[].path ] | unique | [ .[] as $p | $f.paths[$p].read_bio.size_bytes.max // 0 ] | max // 0),
      krbios: ([ $f.reads[].ref_count ] | add // 0),
      mk: ([ "bh", "iomap" ] | map($f.paths[.].mkwrite.calls) | if any(. == null) then "n/a" else add end),
      dwf: ([ "bh", "iomap" ] | map($f.paths[.].dio_fallback.calls) | if any(. == null) then "n/a" else add end),
      diskmib: ([ $f.devices[].disk_bytes ] | add // 0 | mib),
      diff: ([ $f.devices[] | pct(.bio_bytes; .disk_bytes) | fabs ] | max // 0 | . * 100 | round / 100) } ) }
'

# ---- tracepoint mode: the typed twins where the kernel has
# bpf_rdonly_cast (6.2 and later), the untyped ones before; the probes'
# detail says which ran (their figures are checked like any run's below)
# (where raw-buffered ran: VM_SCENARIOS may leave it out)
case " $VM_MODES @ $VM_SCENARIOS " in
*" tracepoint "*@*" raw-buffered "*)
	tpj=$res/runs/tracepoint/raw-buffered/stat.json
	want=$(awk -v v="$K_VERSION" 'BEGIN { split(v, a, "."); print (a[1] > 6 || (a[1] == 6 && a[2] >= 2)) ? "typed" : "untyped" }')
	got=$(jq -r '[.probes[] | select(.name == "write_blkdev" or
		(.name == "writeback_bh" and .mode == "tracepoint"))
		| .detail | split(";")[0] | if test("typed") then "typed" else "untyped" end]
		| unique | join(",")' "$tpj" 2>/dev/null)
	if [ "$got" = "$want" ]; then
		record PASS tracepoint raw-buffered typed "$want programs on $K_VERSION"
	else
		record FAIL tracepoint raw-buffered typed "want $want programs on $K_VERSION, the probes say '${got:-no stat.json}'"
	fi ;;
esac

# iomap_writepages' pages are wbc->nr_to_write's drop, one per folio
# before 6.12 in this matrix (6.1's write_cache_pages)
folio_wb=$(awk -v v="$K_VERSION" 'BEGIN { split(v, a, "."); print (a[1] < 6 || (a[1] == 6 && a[2] < 12)) ? "true" : "false" }')

for mode in $VM_MODES; do
	for s in $VM_SCENARIOS; do
		d=$res/runs/$mode/$s
		if [ -f "$d/skipped" ]; then
			record FAIL "$mode" "$s" ran "not run: $(cat "$d/skipped") (raise VM_TIMEOUT?)"
			continue
		fi
		if [ ! -d "$d" ]; then
			record FAIL "$mode" "$s" ran "no results for this run (guest killed or crashed?)"
			continue
		fi
		rc=$(cat "$d/rc" 2>/dev/null || echo 255)
		stat='{}'
		jq -e . "$d/stat.json" >/dev/null 2>&1 && stat=$(cat "$d/stat.json")
		writers='[]'
		[ -s "$d/writers.jsonl" ] && jq -s . "$d/writers.jsonl" >/dev/null 2>&1 &&
			writers=$(jq -s . "$d/writers.jsonl")
		case $rc in ''|*[!0-9]*) rc=255 ;; esac
		dsb='{}' dsa='{}'
		[ -f "$d/ds.before" ] && dsb=$(ds_json "$d/ds.before")
		[ -f "$d/ds.after" ] && dsa=$(ds_json "$d/ds.after")
		ref='{}'
		bht=false
		[ -f "$d/bh-filter.txt" ] && bht=true
		[ -f "$d/bio-trace.txt" ] && ref=$(trace_json "$d/bio-trace.txt" "$d/trace-stats.txt" $bht)
		pref=null
		[ -f "$d/bio-trace.txt" ] && pref=$(pass_json "$d/bio-trace.txt")
		# ... and those over a FUSE file, by its bdi (named by its
		# device, as the writer's file is)
		fpref=null
		fdevs=$(jq -r 'select(.path | startswith("/mnt/fuse/")) | .dev' \
			"$d/writers.jsonl" 2>/dev/null | sort -u | tr '\n' ' ')
		[ -n "$fdevs" ] && [ "$pref" != null ] &&
			fpref=$(pass_json "$d/bio-trace.txt" "$fdevs")
		kprobes='{}'
		[ -f "$d/kprobe-profile.txt" ] && kprobes=$(kp_json "$d/kprobe-profile.txt")
		# mount point -> the type /proc/mounts names (s_type->name)
		mounts='{}'
		[ -f "$d/mounts.txt" ] && mounts=$(awk 'BEGIN { printf "{"; sep = "" }
			{ printf "%s\"%s\":\"%s\"", sep, $2, $3; sep = "," }
			END { print "}" }' "$d/mounts.txt")
		# bhprof's own warning of runs the kernel skipped
		skipped=$(sed -n 's/.*the kernel skipped \([0-9]*\) runs.*/\1/p' \
			"$d/stat.err" 2>/dev/null | tail -n 1)
		jq -n --arg mode "$mode" --arg scen "$s" --argjson rc "$rc" \
			--argjson ref "$ref" --argjson kp "$kprobes" --argjson pref "$pref" \
			--argjson fpref "$fpref" \
			--argjson skipped "${skipped:-0}" \
			--argjson bh "$K_BH" --arg bhwb "$K_BH_WB" --argjson stat "$stat" \
			--argjson folio_wb "$folio_wb" --argjson pgsz "$K_PAGE_SIZE" \
			--argjson writers "$writers" --argjson dsb "$dsb" \
			--argjson mounts "$mounts" \
			--argjson dsa "$dsa" "$RUN_JQ" > "$d/check.json" ||
			{ record FAIL "$mode" "$s" ran "check failed to evaluate"; continue; }
		jq -r '.mode as $m | .scenario as $s | .checks[] |
			[(if .ok then "PASS" else "FAIL" end), $m, $s, .name, .detail] | @tsv' \
			"$d/check.json" | while IFS=$'\t' read -r r m sc n det; do
			record "$r" "$m" "$sc" "$n" "$det"
		done
		jq -r --arg k "$kname" --arg a "$K_ARCH/$((K_PAGE_SIZE / 1024))k" \
			'.row | [$k, $a, .mode, .scenario, .result, .path,
			.wcalls, .wbcalls, .pages, .bios, .biomib, .maxbio, .bh,
			.diskmib, .diff, .kbios, .kbh, .rcalls, .rbios, .rmib, .rmax,
			.krbios, .mk, .dwf] | @tsv' "$d/check.json" >> "$rows"
		if [ "$rc" != 0 ]; then
			{
				echo "    --- $kname $mode $s: bhprof stat rc=$rc, stderr:"
				sed 's/^/    | /' "$d/stat.err" | tail -n 30
				if [ -f "$d/verbose/stat.err" ]; then
					echo "    --- same run with -v (last 60 lines):"
					sed 's/^/    | /' "$d/verbose/stat.err" | tail -n 60
				fi
			} >&2
		fi
	done
done

# ---- ext4-late: a module loaded under bhprof ----------------------------
# ext4 was out of the kernel when bhprof started (its probes "absent");
# bhprof's helper attached them once ext4 was live, said so once, and the
# run's checks above hold what they counted to the kernel's own counts.
# Then rmmod: refused while a program of bhprof's holds ext4 (fentry and
# tracepoint programs do, and the pass group is on ext4's events in every
# mode), else bhprof says the probes went, and attaches them again.
late_checks() {
	local mode=$1 d=$2 loaded gone want got rc
	[ -f "$d/stat.json" ] || return 0
	loaded=$(grep -c '^bhprof: module ext4 loaded' "$d/stat.err")
	gone=$(grep -c '^bhprof: module ext4 unloaded' "$d/stat.err")
	rc=$(cat "$d/rmmod.rc" 2>/dev/null || echo "?")
	want="pass_ext4"
	[ "$mode" = tracepoint ] || want="read_ext4_folio read_ext4_ra mkwrite_ext4 writeback_ext4 pass_ext4"
	# ... of those the kernel has, by bhprof probe with ext4 loaded
	# (5.10 has no ext4_read_folio)
	want=$(for f in $want; do
		[ "$(jq -r --arg n "$f" '.probes[] | select(.name == $n) | .mode' "$probe" 2>/dev/null)" = absent ] ||
			echo "$f"
	done)
	got=$(jq -r '[.probes_late.attached[]] | unique | join(" ")' "$d/stat.json")
	absent=$(jq -r '[.probes[] | select(.func | startswith("ext4_")) |
		select(.mode != "absent") | .name] | join(" ")' "$d/stat.json")
	if [ -z "$absent" ]; then
		record PASS "$mode" ext4-late "ext4 absent at start" "every ext4 probe absent when bhprof started"
	else
		record FAIL "$mode" ext4-late "ext4 absent at start" "attached at start: $absent (did the prep unload ext4?)"
	fi
	local miss="" f
	for f in $want; do
		case " $got " in *" $f "*) ;; *) miss="$miss $f" ;; esac
	done
	if [ -z "$miss" ] && ! grep -q "could not be attached" "$d/stat.err"; then
		record PASS "$mode" ext4-late "attached late" "probes attached when ext4 loaded: $got"
	else
		record FAIL "$mode" ext4-late "attached late" "missing:$miss; attached: '$got'; stderr: $(grep '^bhprof: module' "$d/stat.err" | head -n 3 | tr '\n' ' ')"
	fi
	# --self-cost (ext4-late.opts): what the helper's programs cost is
	# in the whole, by program (the run's own object has none of them);
	# a tracepoint's raw_tp twin (_raw) where ext4 has no BTF (5.10)
	# (kprobes for ext4's functions beside fentry where modules have
	# no BTF)
	case $mode in
	fentry) want="tp_pass_ext4 fe_ext4_writeback"
		[ "$(cfg_val CONFIG_DEBUG_INFO_BTF_MODULES "$cfg")" = y ] ||
			want="tp_pass_ext4 kp_ext4_writeback" ;;
	kprobe) want="tp_pass_ext4 kp_ext4_writeback" ;;
	*) want="tp_pass_ext4" ;;
	esac
	miss=""
	for f in $want; do
		[ "$(jq --arg n "$f" '[.overhead.programs[]? | select(.name == $n or .name == $n + "_raw") | .runs] | add // 0' "$d/stat.json")" -gt 0 ] ||
			miss="$miss $f"
	done
	got=$(jq -r '[.overhead.programs[]? | select(.name | test("ext4")) | "\(.name) \(.runs) runs \(.ns_per_run | floor) ns"] | join(", ")' "$d/stat.json")
	if [ -z "$miss" ]; then
		record PASS "$mode" ext4-late "late programs' cost" "by program: $got"
	else
		record FAIL "$mode" ext4-late "late programs' cost" "no runs of:$miss; ext4's rows: '$got'"
	fi
	if [ "$rc" = 0 ]; then
		# let go: said once, and attached again when ext4 came back
		if [ "$gone" = 1 ] && [ "$loaded" = 2 ]; then
			record PASS "$mode" ext4-late "unload" "rmmod ext4 let go: 1 'unloaded' line, attached again ($loaded 'loaded' lines)"
		else
			record FAIL "$mode" ext4-late "unload" "rmmod ext4 let go: $gone 'unloaded' lines, $loaded 'loaded' lines (want 1 and 2)"
		fi
	elif [ "$gone" = 0 ] && [ "$loaded" = 1 ] && [ "$(jq '.probes_late.gone | length' "$d/stat.json")" = 0 ]; then
		record PASS "$mode" ext4-late "unload" "rmmod ext4 refused while bhprof's programs hold it ($(tr '\n' ' ' < "$d/rmmod.err")); said once, nothing gone"
	else
		record FAIL "$mode" ext4-late "unload" "rmmod rc=$rc: $gone 'unloaded' lines, $loaded 'loaded' lines (want 0 and 1)"
	fi
}

for mode in $VM_MODES; do
	case " $VM_SCENARIOS " in *" ext4-late "*) ;; *) break ;; esac
	late_checks "$mode" "$res/runs/$mode/ext4-late"
done

# ... and recorded: the snapshots mark when ext4's probes came, report
# lists it with its time, and the summary names them
case " $VM_SCENARIOS " in
*" ext4-late "*)
	ev=$(jq -r '[.recording.probe_events[] | select(.event == "attached" and .at_s > 0) | .probe]
		| unique | join(" ")' "$res/late-report.json" 2>/dev/null)
	sum=$(jq -r '.probes_late.attached | unique | join(" ")' "$res/late-report.json" 2>/dev/null)
	txt=$(grep -c "^probe writeback_ext4 (ext4_writepages) attached when its module loaded at +" "$res/late-report.txt" 2>/dev/null)
	if [ "$(cat "$res/late-record.rc" 2>/dev/null)" = 0 ] &&
	   case " $ev " in *" writeback_ext4 "*) true ;; *) false ;; esac &&
	   [ "$sum" = "$ev" ] && [ "${txt:-0}" -ge 1 ]; then
		record PASS auto ext4-late "recorded" "report's probe_events: $ev attached at +$(jq '[.recording.probe_events[].at_s] | min' "$res/late-report.json") s; the summary names the same"
	else
		record FAIL auto ext4-late "recorded" "record rc=$(cat "$res/late-record.rc" 2>/dev/null); probe_events '$ev', probes_late '$sum', text lines ${txt:-0}; $(tail -n 2 "$res/late-record.err" 2>/dev/null | tr '\n' ' ')"
	fi ;;
esac

# ---- --callers: chains, owners, frees (scenarios with an .opts) ----------
# Chains and owners must each add up to every allocation bhprof counted,
# which the main checks hold to the kernel's own count; the folded file
# must say what the JSON says; raw disk writes belong to bdev, ext4's
# metadata and journal to ext4. slab.txt (Debian 6.1, slab_nomerge) is
# the kernel's own count of buffer_heads alive.
CALLERS_JQ='
def sum(f): map(f) | add // 0;
def slabv($t): [ $slab[] | select(.t == $t) | .a ] | .[0];
$s.callers as $c | $s.bh_alive as $al | ($c.chains | sum(.count)) as $cs |
def owner($fs; $role): [ $c.owners[] | select(.fs == $fs and .role == $role) | .count ] | add // 0;
($c.chains | map({ key: .chain, value: .count }) | from_entries) as $cj |
[ chk("callers: chains add up"; ($c.lost == 0 and $cs == $c.total and $cs == $s.bh_alloc_total and $cs == ($ref // -1));
      "chains \($cs), callers total \($c.total), lost \($c.lost), bh_alloc_total \($s.bh_alloc_total), kernel trace \($ref)"),
  chk("callers: owners add up"; (($c.owners | sum(.count)) == $s.bh_alloc_total);
      "owners \($c.owners | sum(.count)) = bh_alloc_total \($s.bh_alloc_total): \([ $c.owners[] | "\(.fs)/\(.device)/\(.role)=\(.count)" ] | join(" "))"),
  chk("callers: folded = JSON"; ($folded == $cj and ($folded | length) == ($c.chains | length));
      "\($folded | length) folded chains, \($c.chains | length) in the JSON, \([ $folded | to_entries[] | .value ] | add // 0) allocations folded") ]
+ (if $bh == 1 then
    # (frees uncounted, their programs refused: a failure with its
    # figures, not a check that cannot be evaluated)
    [ chk("callers: alive"; ($al.freed != null and $al.net == $al.allocated - $al.freed and $al.bh_size > 0 and $al.peak >= 0);
          "allocated \($al.allocated), freed \($al.freed), net \($al.net) (\($al.net_bytes) B at \($al.bh_size) B), peak \($al.peak)\(if $al.freed == null then "; frees not counted (owners and frees: \($c.owners_mode))" else "" end)") ]
    + (if $scen == "ext4-meta" then
        [ chk("callers: journal role"; (($c.owners | map(select(.role == "journal")) | sum(.count)) > 0);
              "journal allocations \($c.owners | map(select(.role == "journal")) | sum(.count))") ]
        + (if $mode != "tracepoint" then
            [ chk("callers: raw disk on bdev"; ($raw.blocks > 0 and owner("bdev"; "data") >= $raw.blocks);
                  "bdev data \(owner("bdev"; "data")) >= \($raw.blocks) blocks of \($raw.bsize) B in \($raw.bytes) B written"),
              chk("callers: ext4 metadata and journal"; (owner("ext4"; "metadata") > 0 and owner("ext4"; "journal") > 0);
                  "ext4 metadata \(owner("ext4"; "metadata")), ext4 journal \(owner("ext4"; "journal"))") ]
           else [] end)
       elif $mode != "tracepoint" then
        [ chk("callers: raw disk on bdev"; ($raw.blocks > 0 and owner("bdev"; "data") >= $raw.blocks);
              "bdev data \(owner("bdev"; "data")) >= \($raw.blocks) blocks of \($raw.bsize) B in \($raw.bytes) B written") ]
       else [] end)
    + (if $tr.freed != null then
        [ chk("callers: frees vs kernel trace"; ($al.freed == $tr.freed and $tr.overrun == 0);
              "bhprof \($al.freed) freed, tracefs kmem_cache_free from free_buffer_head \($tr.freed)") ]
       else [] end)
    # the kernel'"'"'s own figure of buffer_heads alive: the cache'"'"'s active
    # objects, read after the scenario shrank the cache (SLUB otherwise
    # counts whole slabs held per CPU); bhprof'"'"'s net at the mark is the
    # trace'"'"'s (equal to bhprof'"'"'s over the run). Equal in every run
    # seen; a few objects of slack for another CPU'"'"'s allocation between
    # the two readings
    + (if ($slab | length) == 3 and $tr.marked then
        (slabv("load") - slabv("before")) as $sl | (slabv("dropped") - slabv("load")) as $sd |
        ($tr.bh_load - $tr.free_load) as $nl | ($al.net - $nl) as $nd |
        [ chk("callers: alive moves with slabinfo"; ($nl > 0 and $nd < 0 and
              (($nl - $sl) | fabs) <= 8 and (($nd - $sd) | fabs) <= 8);
              "over the load: net +\($nl), slab active \($sl) (off by \($nl - $sl)); over drop_caches: net \($nd), slab active \($sd) (off by \($nd - $sd))") ]
       else [] end)
  else
    [ chk("callers: none without buffer_heads"; ($c.total == 0 and ($c.chains | length) == 0 and ($c.owners | length) == 0 and $al.net == 0 and $al.peak == 0);
          "chains \($c.chains | length), owners \($c.owners | length), alive \($al.net) (a known 0)") ]
  end)
| .[] | [(if .ok then "PASS" else "FAIL" end), .name, .detail] | @tsv
'
for mode in $VM_MODES; do
	for s in $VM_SCENARIOS; do
		d=$res/runs/$mode/$s
		[ -f "$VM_DIR/scenarios/$s.opts" ] && grep -q -- --callers "$VM_DIR/scenarios/$s.opts" || continue
		[ -f "$d/check.json" ] || continue
		if ! jq -e '.callers.chains' "$d/stat.json" >/dev/null 2>&1; then
			record FAIL "$mode" "$s" "callers: in the JSON" "no .callers in stat.json"
			continue
		fi
		folded=$(jq -R -s 'split("\n") | map(select(length > 0) |
			capture("^(?<c>.*) (?<n>[0-9]+)$") | { key: .c, value: (.n | tonumber) }) |
			from_entries' "$d/folded.txt" 2>/dev/null || echo null)
		slab=$(awk '{ printf "%s{\"t\":\"%s\",\"a\":%d}", (NR > 1 ? "," : ""), $1, $2 }
			BEGIN { printf "[" } END { print "]" }' "$d/slab.txt" 2>/dev/null || echo '[]')
		[ -f "$d/slab.txt" ] || slab='[]'
		# the kernel's own frees, where the scenario traced them
		tr=$(trace_json "$d/bio-trace.txt" "$d/trace-stats.txt" true 2>/dev/null |
			jq -c --argjson f "$([ -f "$d/bhfree-filter.txt" ] && echo true || echo false)" \
			'{ overrun, marked, bh_load, free_load: .bhfree_load, freed: (if $f then .bhfree else null end) }' ||
			echo '{"freed":null,"marked":false}')
		out_c=$(jq -r --arg mode "$mode" --arg scen "$s" --argjson bh "$K_BH" \
			--argjson folded "${folded:-null}" --argjson slab "$slab" --argjson tr "$tr" \
			--argjson ref "$(jq '.figures.ref.bh' "$d/check.json")" \
			--argjson raw "$(jq -s -c '[ .[] | select(.blockdev and .op == "write") ] |
				{ blocks: (map(.bytes / .bsize | ceil) | add // 0),
				  bytes: (map(.bytes) | add // 0), bsize: (map(.bsize) | max // 0) }' \
				"$d/writers.jsonl" 2>/dev/null || echo '{"blocks":0,"bytes":0,"bsize":0}')" \
			--slurpfile st "$d/stat.json" \
			'def chk($n; c; $d): { name: $n, ok: c, detail: $d }; $st[0] as $s | '"$CALLERS_JQ" -n) ||
			{ record FAIL "$mode" "$s" "callers" "the callers checks failed to evaluate"; continue; }
		while IFS=$'\t' read -r r n det; do
			[ -n "$r" ] && record "$r" "$mode" "$s" "$n" "$det"
		done <<< "$out_c"
		# the top five chains, so that a reader sees they are real
		top=$(jq -r '[.callers.chains[:5][] | "\(.count) \(.name)"] | join("; ")' "$d/stat.json")
		record PASS "$mode" "$s" "callers: top five" "${top:-none}"
		echo "    $kname $mode $s top chains: ${top:-none}"
	done
done

# ---- every forced mode sees the same thing -----------------------------
# Pages, bios and buffer_head allocations must not depend on how bhprof
# attached; write calls neither; writeback calls where the mode sees them.
CROSS_JQ='
# metric NAME VALUE REFERENCE: REFERENCE is the kernel'"'"'s own count of the
# same run (tracefs), or null where there is none
def metric($n; f; r): { name: $n, vals: map({ mode: .mode, v: (.figures | f), r: (.figures | r),
                                                s: (.figures.skipped // 0) }) };
def metric($n; f): metric($n; f; null);
map(select(.figures.paths != {})) | select(length > 1) |
# page_mkwrite, and the reads of the faults that precede it, are
# invisible to tracepoints: with a shared mapping, the buffer_heads and
# read pages they make count in fentry and kprobe mode only
(any(.figures.mmap)) as $mm |
# a race makes the kernel do different work in every run: only what has
# the kernel'"'"'s own count to go by can be compared
(any(.figures.racy)) as $racy |
(any(.scenario == "ext4-meta")) as $sync |
# exFAT (FAT, NTFS) writes its metadata through the block device'"'"'s
# buffer heads, by whichever of the flusher and fsync gets there first:
# how many bh bios that takes differs from run to run in the kernel'"'"'s
# own trace too (the per-run checks hold each run to that trace)
(any(.scenario | test("^(exfat|vfat|ntfs|btrfs)-file$"))) as $exfat |
# NTFS'"'"'s metadata goes on none (its own bios, of no path'"'"'s page cache)
# on 7.x, beside its iomap data, as racily; it reads some of it back
# through iomap_read_folio inside the write, which tracepoints see in a
# read syscall only; and in tracepoint mode the write context is the
# write syscall, whose metadata buffer_heads outside the write engine
# (ntfs3) count on its path too
(any(.scenario == "ntfs-file")) as $ntfs |
# the other group'"'"'s write calls are the same in every mode on a disk of
# their own (-d); on the whole machine, fentry and kprobes see those of
# the guest'"'"'s root that no write syscall makes (sendfile, splice) too
(any(.scenario == "btrfs-file")) as $other |
[ metric("bh bios"; .paths.bh.bio.count; .ref.paths.bh.bios), metric("iomap bios"; .paths.iomap.bio.count; .ref.paths.iomap.bios),
  metric("bh bio bytes"; .paths.bh.bio.bytes; .ref.paths.bh.bytes), metric("iomap bio bytes"; .paths.iomap.bio.bytes; .ref.paths.iomap.bytes),
  metric("bh pages"; .paths.bh.writeback.pages), metric("iomap pages"; .paths.iomap.writeback.pages),
  metric("bh allocations"; .paths.bh.bh_alloc; .ref.bh), metric("all bh allocations"; .bh_alloc_total; .ref.bh),
  metric("bh write calls"; .paths.bh.write.calls), metric("iomap write calls"; .paths.iomap.write.calls),
  metric("other write calls"; .other.write.calls), metric("other write bytes"; .other.write.bytes),
  metric("bh direct calls"; .paths.bh.direct.calls), metric("iomap direct calls"; .paths.iomap.direct.calls),
  metric("bh writeback calls"; .paths.bh.writeback.calls; .ref.wb_calls),
  metric("iomap writeback calls"; .paths.iomap.writeback.calls; .ref.wb_calls),
  metric("bh block_write_full_folio calls"; .paths.bh.writeback.engines.block_write_full_folio; .ref.wb_engines.block_write_full_folio),
  metric("bh mpage_writepages calls"; .paths.bh.writeback.engines.mpage_writepages; .ref.wb_engines.mpage_writepages),
  metric("bh ext4_writepages calls"; .paths.bh.writeback.engines.ext4_writepages; .ref.wb_engines.ext4_writepages),
  metric("iomap iomap_writepages calls"; .paths.iomap.writeback.engines.iomap_writepages; .ref.wb_engines.iomap_writepages),
  metric("bh read bios"; .paths.bh.read_bio.count; .ref.rpaths.bh.bios), metric("iomap read bios"; .paths.iomap.read_bio.count; .ref.rpaths.iomap.bios),
  metric("bh read bytes"; .paths.bh.read_bio.bytes; .ref.rpaths.bh.bytes), metric("iomap read bytes"; .paths.iomap.read_bio.bytes; .ref.rpaths.iomap.bytes),
  metric("bh read pages"; .paths.bh.read.pages), metric("iomap read pages"; .paths.iomap.read.pages),
  metric("bh read calls"; .paths.bh.read.calls; .ref.rpaths.bh.calls), metric("iomap read calls"; .paths.iomap.read.calls; .ref.rpaths.iomap.calls),
  metric("bh read bh allocations"; .paths.bh.read_bh_alloc),
  metric("writeback passes"; ((.paths.bh.writeback.passes // 0) + (.paths.iomap.writeback.passes // 0)) as $n |
         if .paths.bh.writeback.passes == null then null else $n end; .ref.passes),
  metric("bh mkwrite calls"; .paths.bh.mkwrite.calls; .ref.mkwrite.bh), metric("iomap mkwrite calls"; .paths.iomap.mkwrite.calls; .ref.mkwrite.iomap),
  metric("fallbacks"; ((.paths.bh.dio_fallback.calls // 0) + (.paths.iomap.dio_fallback.calls // 0)) as $n |
         if .paths.bh.dio_fallback.calls == null then null else $n end; .ref.fallback)
] | .[] |
(if $mm and (.name | test("bh allocations|read pages|read bh")) then
   .vals |= map(select(.mode != "tracepoint")) else . end) |
# ... and before 6.9 tracepoints count a block device'"'"'s pages by the
# writeback context'"'"'s inode, which sync(2) has not: ext4-meta syncs
(if $sync and $old_tp and (.name | test("^bh pages$")) then
   .vals |= map(select(.mode != "tracepoint")) else . end) |
# ... and before 6.12 fentry and kprobe count a mapping'"'"'s writeback in
# folios, tracepoints in pages
(if $mm and $folio_wb and (.name | test("^(bh|iomap) pages$")) then
   .vals |= map(select(.mode != "tracepoint")) else . end) |
# (a path'"'"'s buffer_heads have only the total to go by: not comparable)
select(($racy | not) or ((.vals | all(.r != null)) and .name != "bh allocations")) |
# (so do the pages of its block device: held to the pages written per run)
# ... and on 7.x, exFAT'"'"'s data on iomap: one extent in one bio or two,
# as the flusher or the fsync starts its writeback (2 1 2 in three runs
# of Debian'"'"'s 7.2); its bytes stay compared, and each run'"'"'s bios
# are held to the kernel'"'"'s trace
select(($exfat and (.name | test("^bh (bio|pages$)|^iomap bios$"))) | not) |
select(($ntfs and (.name | test("^iomap (bio|pages$)"))) | not) |
select($other or (.name | startswith("other ") | not)) |
(if $ntfs and (.name | test("^(bh|iomap) read (bios|bytes|pages)$|^bh allocations$")) then
   .vals |= map(select(.mode != "tracepoint")) else . end) |
# ... and ext4-meta'"'"'s block device writeback, which the flusher, jbd2
# and the sync race for: how many pages it takes differs from run to run
# (its calls and engines are held to the kernel'"'"'s own count instead)
select(($sync and (.name | test("^bh pages$"))) | not) |
.vals |= map(select(.v != null)) | select(.vals | length > 1) |
([.vals[].v] | unique | length == 1) as $same |
# When the kernel itself did not do the same thing in every run (its own
# trace says so), what must not change is bhprof minus the kernel, but
# for the runs of its programs the kernel said it skipped (.s).
(.vals | if all(.r != null) then ((map(.v - .r) | max) as $c | all(.v - .r >= $c - .s))
         else false end) as $same_vs_kernel |
{ name: "same across modes: \(.name)", ok: ($same or $same_vs_kernel),
  detail: (([.vals[] | "\(.mode)=\(.v)"] | join(" "))
    + (if $same or ($same_vs_kernel | not) then ""
       else "; NOTE the kernel differed between runs (tracefs: \([.vals[] | "\(.mode)=\(.r)"] | join(" "))), bhprof minus kernel: \([.vals[] | "\(.mode)=\(.v - .r)\(if .s > 0 then " (\(.s) runs skipped)" else "" end)"] | join(" "))" end)
    + (if ($same or $same_vs_kernel) | not then
         (if .vals | all(.r != null) then "; kernel: \([.vals[] | "\(.mode)=\(.r)"] | join(" "))" else "" end)
       else "" end)) }
'
# tracepoints before 6.9 (no wbc->fbatch) see pages by context only
old_tp=$(awk -v v="$K_VERSION" 'BEGIN { split(v, a, "."); print (a[1] < 6 || (a[1] == 6 && a[2] < 9)) ? "true" : "false" }')
for s in $VM_SCENARIOS; do
	files=()
	for mode in $VM_MODES; do
		[ -f "$res/runs/$mode/$s/check.json" ] && files+=("$res/runs/$mode/$s/check.json")
	done
	[ ${#files[@]} -gt 1 ] || continue
	if ! cross=$(jq -s -r --argjson folio_wb "$folio_wb" --argjson old_tp "$old_tp" "$CROSS_JQ"' | [(if .ok then "PASS" else "FAIL" end), .name, .detail] | @tsv' \
		"${files[@]}"); then
		record FAIL all "$s" "same across modes" "the comparison failed to evaluate"
		continue
	fi
	while IFS=$'\t' read -r r n det; do
		[ -n "$r" ] && record "$r" all "$s" "$n" "$det"
	done <<< "$cross"
done

# ---- per-write cost of each mode (figures, not checks) -----------------
# cost.tsv: kernel, mode, rounds, the ratio of the mode's least CPU time
# over its rounds to bare's least, and the extra CPU microseconds per
# write call between the two. The least of each: under TCG the guest's
# CPU time also counts the time its host thread waited for a host CPU,
# which only ever adds.
cost=$out/cost.tsv
: > "$cost"
least_cpu() { # least_cpu MODE: "cpu_s calls" of its quickest round
	for f in "$res"/cost/"$1".*.json; do
		[ -f "$f" ] && grep -h '^{"op"' "$f" | jq -r '"\(.cpu_s) \(.calls)"'
	done 2>/dev/null | sort -g | head -n 1
}
if [ -d "$res/cost" ]; then
	read -r bare_cpu _ <<<"$(least_cpu bare)"
	for mode in $VM_MODES; do
		read -r cpu calls <<<"$(least_cpu "$mode")"
		[ -n "$cpu" ] && [ -n "$bare_cpu" ] && [ "${calls:-0}" -gt 0 ] ||
			continue
		n=$(ls "$res"/cost/"$mode".*.json 2>/dev/null | wc -l)
		awk -v k="$kname $K_ARCH/$((K_PAGE_SIZE / 1024))k" -v m="$mode" -v n="$n" -v c="$cpu" \
		    -v b="$bare_cpu" -v w="$calls" 'BEGIN {
			if (b > 0) printf "%s\t%s\t%d\t%.2f\t%.1f\n",
				k, m, n, c / b, (c - b) * 1e6 / w }' >> "$cost"
	done
fi

awk -F'\t' '$1 == "FAIL"' "$checks"
! grep -q '^FAIL' "$checks"
