#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Checks the flame graph of a bhprof HTML report: every box's children
fill exactly its width (thousandths of a pixel), and their counts add up
to its count; the root spans the whole graph and counts TOTAL.
usage: flame_check.py REPORT.html TOTAL; prints what it found, exits 1
on the first box that does not add up."""
import re
import sys
import xml.etree.ElementTree as ET

html = open(sys.argv[1], encoding="utf-8").read()
total = int(sys.argv[2])
m = re.search(r'<svg class="flame".*?</svg>', html, re.S)
if not m:
    sys.exit("no flame graph in the report")
svg = ET.fromstring(m.group(0))
ns = "{http://www.w3.org/2000/svg}"
boxes = []
for r in svg.iter(ns + "rect"):
    x = round(float(r.get("x")) * 1000)
    w = round(float(r.get("width")) * 1000)
    boxes.append((int(r.get("data-depth")), x, w, int(r.get("data-count"))))
roots = [b for b in boxes if b[0] == 0]
if len(roots) != 1:
    sys.exit("%d roots" % len(roots))
root = roots[0]
width = int(svg.get("width")) * 1000
if root[1] != 0 or root[2] != width or root[3] != total:
    sys.exit("root x=%d width=%d count=%d, want 0, %d, %d" %
             (root[1], root[2], root[3], width, total))
parents = 0
for d, x, w, n in boxes:
    kids = [b for b in boxes if b[0] == d + 1 and x <= b[1] < x + w]
    if not kids:
        continue
    parents += 1
    if sum(k[2] for k in kids) != w or sum(k[3] for k in kids) != n:
        sys.exit("box at depth %d x=%d: width %d, children %d; count %d, "
                 "children %d" % (d, x, w, sum(k[2] for k in kids), n,
                                  sum(k[3] for k in kids)))
print("%d boxes, %d with children, all filled exactly; root %d" %
      (len(boxes), parents, total))
