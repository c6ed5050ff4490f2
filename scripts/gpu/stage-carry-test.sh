#!/usr/bin/env bash
# ctest scripts.stage_carry_ships_current_binaries: scripts/gpu/stage-carry.sh run on a tiny
# Ninja tree in a scratch copy of the repository's layout (the script works at the root it
# lives in), whose kernel_fuzzer was built, then its source changed. The carry must hold the
# binary of the changed source, never the one left in the tree; a file that is no output of
# the tree must be refused with its name, leaving the previous carry as it was.
set -euo pipefail
source_dir="$(cd "$(dirname "$0")/../.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/scripts/gpu" "$work/src" "$work/build-t"
cp "$source_dir"/scripts/gpu/*.sh "$work/scripts/gpu/"
# Two distinct ELF files (strip needs one) stand for two versions of the fuzz target's source.
cp "$(type -P true)" "$work/src/old"
cp "$(type -P false)" "$work/src/new"
cp "$work/src/old" "$work/src/kernel_fuzzer"
cat >"$work/build-t/build.ninja" <<'NINJA'
rule copy
  command = cp $in $out
build fuzz/kernel_fuzzer: copy ../src/kernel_fuzzer
build plugins/libkda_example.so: copy ../src/old
NINJA
: >"$work/build-t/CTestTestfile.cmake"
ninja -C "$work/build-t" >/dev/null
# The source moves on after the build; the tree's binary is now stale.
sleep 1  # a later modification time, on a file system of coarse times too
cp "$work/src/new" "$work/src/kernel_fuzzer"

out=$(bash "$work/scripts/gpu/stage-carry.sh" build-t 2>&1) || fail "stage-carry failed on a stale tree: $out"
mkdir "$work/unpacked"
tar xJf "$work/build-carry/gpu.tar.xz" -C "$work/unpacked"
staged="$work/unpacked/build-gpu/fuzz/kernel_fuzzer"
[ -f "$staged" ] || fail "the carry holds no fuzz/kernel_fuzzer"
[ -f "$work/unpacked/build-gpu/plugins/libkda_example.so" ] || fail "the carry holds no plugin (plugins/*.so)"
strip -o "$work/new.stripped" "$work/src/new"
strip -o "$work/old.stripped" "$work/src/old"
cmp -s "$staged" "$work/old.stripped" && fail "the carry holds the stale kernel_fuzzer, built before its source changed"
cmp -s "$staged" "$work/new.stripped" || fail "the carry's kernel_fuzzer is not the current source's"

# A leftover binary no rule of the tree makes (a removed target's): refused, by name, and
# the carry staged above is left as it was.
cp "$work/src/old" "$work/build-t/plugins/libleftover.so"
sum=$(sha256sum <"$work/build-carry/gpu.tar.xz")
if out=$(bash "$work/scripts/gpu/stage-carry.sh" build-t 2>&1); then fail "stage-carry staged a leftover plugin: $out"; fi
grep -q "plugins/libleftover.so" <<<"$out" || fail "the refusal does not name the leftover: $out"
[ "$(sha256sum <"$work/build-carry/gpu.tar.xz")" = "$sum" ] || fail "a refused staging changed the previous carry"
echo "stage-carry ships the current binaries and refuses a leftover"
