#!/usr/bin/env bash
# ctest scripts.wheel_parts_round_trip: scripts/gpu/wheel-parts.sh on three stand-in wheels
# (random bytes) with a small part size: every part at most that size, the join byte-identical
# to the wheels; a damaged piece and a missing part each fail the join and leave no wheel of it
# in the output; a folder that no split made is never replaced.
set -euo pipefail
script="$(cd "$(dirname "$0")" && pwd)/wheel-parts.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"
mkdir wheels
head -c 250000 /dev/urandom >wheels/big-1.0-py3-none-any.whl
head -c 70000 /dev/urandom >wheels/mid-1.0-py3-none-any.whl
head -c 900 /dev/urandom >wheels/small-1.0-py3-none-any.whl
export WHEEL_PART_BYTES=100000

bash "$script" split wheels parts >/dev/null
n=$(ls -d parts-* | wc -l)
[ "$n" -ge 4 ] || fail "expected at least 4 parts of 100000 bytes for 320900 bytes, got $n"
for d in parts-*; do
  size=$(find "$d" -name '*.piece-*' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  [ "$size" -le "$WHEEL_PART_BYTES" ] || fail "$d holds $size bytes of pieces"
  [ -f "$d/manifest.txt" ] || fail "$d has no manifest"
done
bash "$script" join out parts >/dev/null
for w in wheels/*.whl; do cmp -s "$w" "out/$(basename "$w")" || fail "$(basename "$w") joined differently"; done
[ -z "$(ls -A out | grep -v '\.whl$')" ] || fail "the join left files other than wheels: $(ls -A out)"

# A damaged piece: the join fails and leaves no wheel of it.
piece=$(ls parts-*/big-1.0-py3-none-any.whl.piece-001)
printf 'X' | dd of="$piece" bs=1 seek=10 conv=notrunc status=none
if bash "$script" join out2 parts 2>err.txt; then fail "a damaged piece joined"; fi
grep -q "big-1.0-py3-none-any.whl: sha256 differs" err.txt || fail "no word of the damaged wheel: $(cat err.txt)"
[ ! -e out2/big-1.0-py3-none-any.whl ] || fail "the damaged wheel was left in the output"
[ -e out2/small-1.0-py3-none-any.whl ] || fail "the intact wheels were not joined"

# A part not carried: the join names the missing piece and fails.
bash "$script" split wheels parts >/dev/null
last=$(ls -d parts-* | sort -t- -k2 -n | tail -1)
rm -rf "$last"
if bash "$script" join out3 parts 2>err.txt; then fail "a join without its last part succeeded"; fi
grep -q "missing (was its part carried?)" err.txt || fail "no word of the missing piece: $(cat err.txt)"
[ -z "$(ls -A out3 | grep -v '\.whl$')" ] || fail "the failed join left its partial files: $(ls -A out3)"

# A folder of the prefix's name that no split made stays as it was.
mkdir -p mine-1 && echo keep >mine-1/notes.txt
if bash "$script" split wheels mine 2>err.txt; then fail "split replaced a folder it did not make"; fi
[ "$(cat mine-1/notes.txt)" = keep ] || fail "mine-1/notes.txt changed"
echo "PASS: wheel parts round-trip, refuse damage and missing parts, spare foreign folders"
