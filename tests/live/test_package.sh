#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The release as users get it: make dist's tarball builds with make outside
# git; dpkg-buildpackage turns it into bhprof_VERSION_amd64.deb, and
# with -a arm64 into bhprof_VERSION_arm64.deb, which lintian passes
# without errors; apt installs it; the installed bhprof
# probes, measures a dd to a loop device in agreement with /proc/diskstats
# and records, all under the version of --version and of the package; its
# bash completion completes; apt purges it and nothing of it is left.
. "$(dirname "$0")/lib.sh"
need_root package

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BIN=/usr/sbin/bhprof
APT="apt-get -y -q -o DPkg::Lock::Timeout=120"
INSTALLED=

not() { ! "$@"; }

# a bhprof this test installed is purged even when the test dies
pkg_cleanup() {
	[ -n "$INSTALLED" ] && $APT purge bhprof >/dev/null 2>&1
	cleanup
}
trap pkg_cleanup EXIT

for t in make dpkg-buildpackage dpkg-checkbuilddeps dh lintian apt-get jq; do
	command -v "$t" >/dev/null ||
		{ bad "package: no $t (tests/install-deps.sh installs it)"; finish; }
done
[ -f /usr/share/bash-completion/bash_completion ] ||
	{ bad "package: no bash-completion (tests/install-deps.sh installs it)"; finish; }
if ! (cd "$SRC" && dpkg-checkbuilddeps) 2>"$WORK/deps.txt"; then
	bad "package: debian/control's build dependencies: $(cat "$WORK/deps.txt")"
	finish
fi

# --- one version: VERSION, debian/changelog
V=$(cat "$SRC/VERSION")
CHV=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
check "version: debian/changelog ($CHV) is VERSION ($V)" [ "$CHV" = "$V" ]

# --- make dist, and a build from the tarball outside git
TAR=$WORK/bhprof-$V.tar.gz
TREE=$WORK/bhprof-$V
make -s -C "$SRC" dist DISTDIR="$WORK" >/dev/null 2>"$WORK/dist.txt"
check "make dist writes bhprof-$V.tar.gz" [ -s "$TAR" ]
[ -s "$TAR" ] || { cat "$WORK/dist.txt"; finish; }
echo "     tarball: $(stat -c %s "$TAR") bytes, $(tar -tzf "$TAR" | grep -vc '/$') files"
tar -xzf "$TAR" -C "$WORK"
check "dist: unpacks to bhprof-$V/, with no .git" \
	test -f "$TREE/Makefile" -a ! -e "$TREE/.git"
start=$SECONDS
make -C "$TREE" -j2 >"$WORK/make.txt" 2>&1 || tail -20 "$WORK/make.txt"
check "dist: builds with make outside git ($((SECONDS - start)) s)" \
	[ -x "$TREE/bhprof" ]
check "dist: that build says 'bhprof $V'" \
	[ "$("$TREE/bhprof" --version 2>&1)" = "bhprof $V" ]
mkdir "$WORK/re"
make -s -C "$TREE" dist DISTDIR="$WORK/re" >/dev/null 2>&1
tar -tzf "$TAR" | grep -v '/$' | sort >"$WORK/a.txt"
tar -tzf "$WORK/re/bhprof-$V.tar.gz" 2>/dev/null | grep -v '/$' | sort >"$WORK/b.txt"
check "dist: make dist outside git (after make) packs the same files" \
	cmp -s "$WORK/a.txt" "$WORK/b.txt"

# --- the package, built from the tarball's tree (dh's clean runs first)
DEB=$WORK/bhprof_${V}_amd64.deb
start=$SECONDS
(cd "$TREE" && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -us -uc -b) \
	>"$WORK/deb.txt" 2>&1
rc=$?
check "dpkg-buildpackage -us -uc -b builds bhprof_${V}_amd64.deb ($((SECONDS - start)) s)" \
	[ "$rc" = 0 -a -s "$DEB" ]
[ -s "$DEB" ] || { tail -30 "$WORK/deb.txt"; finish; }
echo "     package: $(stat -c %s "$DEB") bytes, installed size" \
     "$(dpkg-deb -f "$DEB" Installed-Size) KiB"
check "build: dpkg-buildflags' hardening reaches the host compiler" \
	grep -qE -- '-D_FORTIFY_SOURCE=2 .*-fstack-protector-strong .*-c src/main.c' \
	"$WORK/deb.txt"
check "build: and links with -z relro -z now" \
	grep -qE -- '-Wl,-z,relro -Wl,-z,now .* -o bhprof$' "$WORK/deb.txt"
check "build: but not clang -target bpf" \
	not grep -E -- '-target bpf.*(-fstack-protector|FORTIFY)' "$WORK/deb.txt"

lintian "$WORK/bhprof_${V}_amd64.changes" >"$WORK/lintian.txt" 2>&1
sed -n 's/^/     lintian: /p' "$WORK/lintian.txt" | grep -v 'root privileges'
nerr=$(grep -c '^E: ' "$WORK/lintian.txt")
nwarn=$(grep -c '^W: ' "$WORK/lintian.txt")
check "lintian: no errors ($nerr errors, $nwarn warnings)" [ "$nerr" = 0 ]

# --- the same tree cross-built for arm64, as dpkg-buildpackage -a arm64
# does it with Debian's cross toolchain and the :arm64 -dev packages
ADEB=$WORK/bhprof_${V}_arm64.deb
start=$SECONDS
(cd "$TREE" && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -a arm64 -us -uc -b) \
	>"$WORK/deb-arm64.txt" 2>&1
rc=$?
check "dpkg-buildpackage -a arm64 -us -uc -b builds bhprof_${V}_arm64.deb ($((SECONDS - start)) s)" \
	[ "$rc" = 0 -a -s "$ADEB" ]
if [ -s "$ADEB" ]; then
	mkdir "$WORK/arm64"
	dpkg-deb -x "$ADEB" "$WORK/arm64"
	check "arm64 package: Architecture arm64, an aarch64 /usr/sbin/bhprof" \
		test "$(dpkg-deb -f "$ADEB" Architecture)" = arm64 -a \
		"$(readelf -h "$WORK/arm64/usr/sbin/bhprof" 2>/dev/null |
		   awk '/Machine:/ { print $2 }')" = AArch64
	lintian "$WORK/bhprof_${V}_arm64.changes" >"$WORK/lintian-arm64.txt" 2>&1
	sed -n 's/^/     lintian arm64: /p' "$WORK/lintian-arm64.txt" | grep -v 'root privileges'
	nerr=$(grep -c '^E: ' "$WORK/lintian-arm64.txt")
	check "lintian arm64: no errors ($nerr errors)" [ "$nerr" = 0 ]
else
	tail -30 "$WORK/deb-arm64.txt"
fi

dpkg-deb -c "$DEB" | awk '{ print $NF }' >"$WORK/contents.txt"
for f in usr/sbin/bhprof usr/share/man/man8/bhprof.8.gz \
	 usr/share/bash-completion/completions/bhprof \
	 usr/share/doc/bhprof/copyright usr/share/doc/bhprof/changelog.gz \
	 usr/share/doc/bhprof/README.md usr/share/doc/bhprof/NEWS \
	 usr/share/doc/bhprof/format.md; do
	check "package: has /$f" grep -qE "^\./$f(\.gz)?$" "$WORK/contents.txt"
done
dep=$(dpkg-deb -f "$DEB" Depends)
echo "     Depends: $dep"
check "package: dh_shlibdeps found libbpf1 and libc6" \
	grep -q 'libbpf1 .*libc6\|libc6 .*libbpf1' <<<"$dep"
check "package: debian/control names no library by hand" \
	not grep -qE '^Depends:.*lib' "$TREE/debian/control"
check "package: its version is $V" [ "$(dpkg-deb -f "$DEB" Version)" = "$V" ]

# --- install with apt
if dpkg -s bhprof >/dev/null 2>&1; then
	echo "     bhprof $(dpkg-query -W -f='${Version}' bhprof) was installed: replaced, then purged"
fi
INSTALLED=1
$APT install "$DEB" >"$WORK/apt.txt" 2>&1 || tail -20 "$WORK/apt.txt"
check "apt-get install ./bhprof_${V}_amd64.deb" \
	[ "$(dpkg-query -W -f='${Status} ${Version}' bhprof 2>/dev/null)" = "install ok installed $V" ]
check "installed: $BIN --version says 'bhprof $V'" \
	[ "$("$BIN" --version 2>&1)" = "bhprof $V" ]

"$BIN" probe >"$WORK/probe.txt" 2>&1
rc=$?
sed -n '1,3s/^/     probe: /p' "$WORK/probe.txt"
check "installed: bhprof probe runs" [ "$rc" = 0 ]
check "installed: probe names this kernel" grep -qF "$(uname -r)" "$WORK/probe.txt"

new_loop 64 || { bad "losetup"; finish; }
sync
before=$(diskstats_bytes "$LOOP")
"$BIN" stat --json -d "$LOOP" -- dd if=/dev/zero of="$LOOP" bs=1M count=8 \
	conv=fsync status=none >"$WORK/stat.json" 2>"$WORK/err.txt"
rc=$?
ds=$(($(diskstats_bytes "$LOOP") - before))
[ "$rc" = 0 ] || cat "$WORK/err.txt"
j() { jq -r "$1" "$WORK/stat.json" 2>/dev/null; }
b=$(j ".devices[] | select(.name == \"$(basename "$LOOP")\") | .bio_bytes")
echo "     stat: device bio bytes $b, /proc/diskstats $ds"
check "installed: stat -- dd runs" [ "$rc" = 0 ]
check "installed: stat's device bytes agree with /proc/diskstats within 1%" \
	close_to "${b:-0}" "$ds" 1
check "installed: stat saw dd's 8 MiB of write calls" \
	[ "$(j '.paths.bh.write.bytes + .paths.iomap.write.bytes')" = 8388608 ]
check "installed: stat --json's version is $V" [ "$(j .bhprof_version)" = "$V" ]

"$BIN" record -o "$WORK/x.bhp" --duration 1 >/dev/null 2>&1
check "installed: record -o x.bhp --duration 1" [ -s "$WORK/x.bhp" ]
"$BIN" report "$WORK/x.bhp" >"$WORK/report.txt" 2>&1
echo "     report: $(head -1 "$WORK/report.txt")"
check "installed: report's header says bhprof $V" \
	grep -q "^bhprof $V: " "$WORK/report.txt"
check "installed: report --json says bhprof_version $V" \
	[ "$("$BIN" report --json "$WORK/x.bhp" 2>/dev/null | jq -r .bhprof_version)" = "$V" ]

# --- bash completion, as bash-completion loads it on the first TAB
mkdir -p "$WORK/c/sub" "$WORK/fake"
touch "$WORK/c/x.bhp" "$WORK/c/notes.txt" "$WORK/c/out.html" "$WORK/c/r.xml"

# comp WORD...: what TAB offers after "bhprof WORD...", one per line
comp() {
	(cd "$WORK/c" && PATH=/usr/sbin:/usr/bin:/sbin:/bin bash -c '
		. /usr/share/bash-completion/bash_completion
		_completion_loader bhprof
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_bhprof "$1" "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' bash "$@" 2>&1)
}
has() { # has "REPLY" WORD...: every WORD is a line of REPLY
	local w
	for w in "${@:2}"; do
		grep -qxF -- "$w" <<<"$1" || return 1
	done
}
hasnt() { not grep -qxF -- "$2" <<<"$1"; }

check "completion: installed where bash-completion loads it" \
	bash -c '. /usr/share/bash-completion/bash_completion
		_completion_loader bhprof; complete -p bhprof | grep -q _bhprof'
cmds=$("$BIN" --help | awk '/^Commands:/ { on = 1; next }
	on && !NF { exit } on { print $1 }' | sort)
check "completion: bhprof TAB gives the commands of --help ($(xargs <<<"$cmds"))" \
	[ "$(comp bhprof '' | sort)" = "$cmds" ]
check "completion: bhprof st TAB gives stat" [ "$(comp bhprof st)" = stat ]
r=$(comp bhprof stat --)
check "completion: stat's options from stat --help" \
	has "$r" --json --device --duration --attach --interval --pid
check "completion: not top's" hasnt "$r" --plain
check "completion: probe's options from its usage line" \
	has "$(comp bhprof probe --)" --attach --json
check "completion: -d gives block device names" \
	has "$(comp bhprof stat -d '')" "$(basename "$LOOP")"
check "completion: -d /dev/ gives /dev/ names" \
	has "$(comp bhprof stat -d /dev/)" "$LOOP"
check "completion: --attach gives the four modes" \
	[ "$(comp bhprof stat --attach '' | sort | xargs)" = "auto fentry kprobe tracepoint" ]
r=$(comp bhprof report '')
check "completion: report takes .bhp files" has "$r" x.bhp sub
check "completion: and no other file" hasnt "$r" notes.txt
check "completion: diff's second recording" has "$(comp bhprof diff x.bhp '')" x.bhp
check "completion: record -o takes any file" has "$(comp bhprof record -o '')" notes.txt
check "completion: report --html OUT.html takes .html files" \
	has "$(comp bhprof report --html '')" out.html
check "completion: after -- the command bhprof runs" \
	has "$(comp bhprof stat -- dd)" dd

# a command this completion has never heard of, with options of every kind
cat >"$WORK/fake/bhprof" <<'EOF'
#!/bin/sh
case "$1 $2" in
"--help "*)
	printf 'Usage: bhprof [COMMAND] [OPTIONS]\n\nCommands:\n'
	printf '  top      live view (default)\n  gate     pass or fail\n\n' ;;
"gate --help")
	printf 'Usage: bhprof gate --baseline FILES... --candidate FILES...\n'
	printf '                   [--rule RULE] [--json]\n\n'
	printf '      --junit OUT.xml      a JUnit report\n'
	printf '      --textfile DIR       the metrics directory\n' ;;
esac
EOF
chmod +x "$WORK/fake/bhprof"
F=$WORK/fake/bhprof
check "completion: a new command completes from --help alone" \
	[ "$(comp "$F" g)" = gate ]
check "completion: and so do its options" \
	has "$(comp "$F" gate --)" --baseline --candidate --rule --json --junit --textfile
check "completion: --baseline FILES... takes .bhp files, more than one" \
	has "$(comp "$F" gate --baseline x.bhp '')" x.bhp
check "completion: --junit OUT.xml takes .xml files" \
	has "$(comp "$F" gate --junit '')" r.xml
r=$(comp "$F" gate --textfile '')
check "completion: --textfile DIR takes directories" has "$r" sub
check "completion: only" hasnt "$r" x.bhp

# --- purge: nothing of the package is left
dpkg -L bhprof | while read -r f; do
	if [ -d "$f" ]; then echo "d $f"; else echo "f $f"; fi
done >"$WORK/files.txt"
$APT purge bhprof >"$WORK/purge.txt" 2>&1 || tail -20 "$WORK/purge.txt"
check "apt-get purge -y bhprof: dpkg -s says it is not installed" \
	not dpkg -s bhprof 2>/dev/null
INSTALLED=
left=
nfiles=0
while read -r kind f; do
	if [ "$kind" = d ]; then
		# dpkg removes a directory of the package once it is empty
		[ -d "$f" ] && [ -z "$(ls -A "$f")" ] && left="$left $f"
	else
		nfiles=$((nfiles + 1))
		{ [ -e "$f" ] || [ -L "$f" ]; } && left="$left $f"
	fi
done <"$WORK/files.txt"
check "purge: none of the package's $nfiles files or its directories is left" \
	[ -z "$left" ]
[ -z "$left" ] || echo "     left:$left"
check "purge: /usr/share/doc/bhprof is gone" [ ! -e /usr/share/doc/bhprof ]

finish
