#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Cut the raw BTF blob out of a kernel image, for `make vmlinux`.

An arm64 Image (gzip'ed or not) is the kernel's memory image, and the
.BTF section lies in it as it is in vmlinux: a struct btf_header followed
by its type and string sections. Taking it from there needs no guest and
no vmlinux with symbols. bpftool reads the blob as a raw BTF file.

usage: btf-from-image.py IMAGE OUT.btf
"""
import gzip
import struct
import sys

BTF_MAGIC = b"\x9f\xeb"		# 0xeB9F, little-endian
HDR = struct.Struct("<HBBIIIII")	# magic version flags hdr_len type_off/len str_off/len


def candidates(data):
    """Every well-formed little-endian BTF header and the blob's size."""
    i = data.find(BTF_MAGIC)
    while i >= 0:
        if i + HDR.size <= len(data):
            magic, ver, flags, hdr_len, toff, tlen, soff, slen = \
                HDR.unpack_from(data, i)
            end = hdr_len + max(toff + tlen, soff + slen)
            # version 1, the header as libbpf knows it, strings after types
            if ver == 1 and hdr_len == 24 and toff == 0 and \
               soff == tlen and slen > 0 and i + end <= len(data):
                # the string section starts with the empty string
                if data[i + hdr_len + soff] == 0:
                    yield i, end
        i = data.find(BTF_MAGIC, i + 1)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: btf-from-image.py IMAGE OUT.btf")
    with open(argv[1], "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    found = sorted(candidates(data), key=lambda c: c[1], reverse=True)
    if not found:
        sys.exit("btf-from-image: no BTF in %s (CONFIG_DEBUG_INFO_BTF?)"
                 % argv[1])
    off, size = found[0]
    with open(argv[2], "wb") as f:
        f.write(data[off:off + size])
    print("btf-from-image: %d bytes of BTF at offset %#x of %s"
          % (size, off, argv[1]), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
