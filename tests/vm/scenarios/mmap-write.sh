#!/bin/sh
# Writes through a shared mapping, then msync: 4 MiB into a new ext4
# file (where the kernel has ext4) and a new XFS file. No write call:
# every page is dirtied by a page_mkwrite fault. With read-ahead off
# on both disks each fault reads its page through ->read_folio (up to
# 5.18 ->readpage), the read call no other scenario makes (madvise's
# MADV_RANDOM would do it too, where the kernel has madvise).
. /scenarios/common.sh
KREF=1
[ -n "$XFS_MNT" ] || { echo "no xfs mount" >&2; exit 2; }
ra=$(cat /sys/block/${XFS_DEV#/dev/}/queue/read_ahead_kb)
readahead_kb 0 "$XFS_DEV" ${EXT4_MNT:+"$EXT4_DEV"}
begin
[ -z "$EXT4_MNT" ] || w -m -c -s 64k -t 4m "$EXT4_MNT/m-$MODE"
w -m -c -s 64k -t 4m "$XFS_MNT/m-$MODE"
end
readahead_kb "$ra" "$XFS_DEV" ${EXT4_MNT:+"$EXT4_DEV"}
