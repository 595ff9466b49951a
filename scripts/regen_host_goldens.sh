#!/usr/bin/env bash
# Regenerates the expected output (X.out) of every plain-Python golden test by running the
# same X.shard under CPython 3.11, so those goldens say exactly what CPython prints.
#
#   scripts/regen_host_goldens.sh [DIR|FILE...]     (default: tests/golden examples)
#
# The first line of each test names where its expected output comes from (README, "Golden
# tests"); only `# golden: cpython` tests are regenerated. The others are skipped: `jax-seed`
# (text from the seed documents), `numpy` (checked against numpy) and `shard` (a snapshot of
# shard's own output, e.g. error reports, reviewed by hand). A test without such a line is a
# failure, as in `shard test`. Helper modules (names starting with '_') are not tests. Each
# test runs in a temporary copy of its directory where every X.shard is also X.py, so
# `import helper` finds helper.shard's twin. Script arguments after `--` in a
# `# shard-args:` line are passed to CPython too.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)'; then
  echo "regen_host_goldens: $PY is $("$PY" --version 2>&1), expected CPython 3.11" >&2
  exit 2
fi

roots=("$@")
[ ${#roots[@]} -eq 0 ] && roots=(tests/golden examples)

# Leading comment block of a file (the lines before the first non-comment line).
header() { awk '!/^#/ { exit } { print }' "$1"; }

# The provenance kind named by a test's first line (`# golden: KIND ...`), or nothing.
provenance() { head -n 1 "$1" | sed -nE 's/^# golden: (cpython|jax-seed|numpy|shard)( .*)?$/\1/p'; }

mapfile -t tests < <(find "${roots[@]}" -name '_*' -prune -o -name '*.shard' -type f -print | sort)
updated=0 unchanged=0 failed=0
declare -A skipped=([jax-seed]=0 [numpy]=0 [shard]=0)
for test in "${tests[@]}"; do
  kind=$(provenance "$test")
  if [ -z "$kind" ]; then
    echo "FAIL $test: its first line must be a provenance line (# golden: cpython|jax-seed|numpy|shard ...)" >&2
    failed=$((failed + 1))
    continue
  elif [ "$kind" != cpython ]; then
    skipped[$kind]=$((skipped[$kind] + 1))
    continue
  fi
  dir=$(dirname "$test")
  base=$(basename "$test" .shard)
  tmp=$(mktemp -d)
  for f in "$dir"/*.shard; do cp "$f" "$tmp/$(basename "$f" .shard).py"; done

  args=()
  if line=$(header "$test" | grep -m1 '^# shard-args:'); then
    read -r -a words <<< "${line#\# shard-args:}"
    after=0
    for w in "${words[@]}"; do
      if [ "$after" = 1 ]; then args+=("$w"); elif [ "$w" = "--" ]; then after=1; fi
    done
  fi

  status=0
  (cd "$tmp" && env -u SHARD_DEVICES NO_COLOR=1 PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 \
     "$PY" -u "$base.py" "${args[@]}" > "$tmp/.actual" 2>&1) || status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL $test: CPython exited with status $status (plain-Python goldens must run cleanly)" >&2
    sed 's/^/    /' "$tmp/.actual" | tail -n 20 >&2
    failed=$((failed + 1))
  elif cmp -s "$tmp/.actual" "$dir/$base.out"; then
    unchanged=$((unchanged + 1))
  else
    cp "$tmp/.actual" "$dir/$base.out"
    echo "updated $dir/$base.out"
    updated=$((updated + 1))
  fi
  rm -rf "$tmp"
done
echo "$updated updated, $unchanged unchanged, $failed failed;" \
  "not regenerated: ${skipped[jax-seed]} jax-seed, ${skipped[numpy]} numpy, ${skipped[shard]} shard"
[ "$failed" -eq 0 ]
