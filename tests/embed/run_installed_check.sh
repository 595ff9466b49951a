#!/usr/bin/env bash
# libshard as an embedding program sees it (issue 19, item 12): installed (meson install into a
# scratch prefix), found by pkg-config, with a versioned SONAME, exporting only the public API;
# examples/embed/embed_example.cpp is compiled against that installed copy and run.
# Picked up by scripts/test.sh. Last line: "N passed, N failed".
#   bash tests/embed/run_installed_check.sh build
set -uo pipefail
BUILD=$(realpath "${1:?usage: run_installed_check.sh BUILD_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
passed=0 failed=0
check() {  # description, status (0 = ok)
  if [ "$2" -eq 0 ]; then echo "ok   $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$BUILD" --destdir "$dest" --quiet >/dev/null 2>&1
check "meson install into a scratch destdir" $?

pc=$(find "$dest" -name shard.pc | head -1)
[ -n "$pc" ]
check "shard.pc is installed" $?
lib=$(find "$dest" -name 'libshard.so.*.*' | head -1)
[ -n "$lib" ] && readelf -d "$lib" | grep -q 'SONAME.*libshard.so.0'
check "libshard has the versioned SONAME libshard.so.0" $?
exported=$(nm -DC --defined-only "$lib" | grep -cv -e ' shard::' -e ' std::' -e 'for shard::' -e '__bss_start' -e '_edata' -e '_end' -e 'guard variable')
[ "$exported" -eq 0 ]
check "only shard:: API symbols are exported (others: $exported)" $?

export PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_PATH="$(dirname "$pc")"
flags=$(pkg-config --cflags --libs shard)
c++ -std=c++20 -O1 "$root/examples/embed/embed_example.cpp" $flags -o "$dest/embed_example" 2>"$dest/cc.log"
check "embed_example.cpp builds with \`pkg-config --cflags --libs shard\` only" $?
[ $? -eq 0 ] || head -20 "$dest/cc.log"
out=$(LD_LIBRARY_PATH="$(dirname "$lib")" "$dest/embed_example" 2>&1)
status=$?
[ $status -eq 0 ] && LD_LIBRARY_PATH="$(dirname "$lib")" ldd "$dest/embed_example" | grep -q "$(dirname "$lib")/libshard.so.0"
check "the installed example runs against the installed libshard.so.0" $?
[ $status -eq 0 ] || echo "$out" | tail -10

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
