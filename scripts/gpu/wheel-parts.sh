#!/usr/bin/env bash
# Wheels larger than one device call may carry (64 MiB in all) go over in parts. `split` packs
# the wheels of a folder into numbered folders PREFIX-1/, PREFIX-2/, ... of at most
# WHEEL_PART_BYTES each (46 MiB: a call carries the working tree too, 12 MB; a wheel larger
# than that is cut into pieces NAME.piece-000, -001, ...), each folder one call's `carry` (the device keeps the
# ignored folders an earlier warm call brought); every folder holds the manifest, one line per wheel:
# its sha256, its name and its number of pieces. `join`, on the device, reassembles the wheels
# into OUT, each checked against its sum; a missing or damaged piece fails the join (exit 1)
# and leaves no wheel of it in OUT, so `pip install --no-index --find-links OUT` never sees a
# partial one.
# usage: scripts/gpu/wheel-parts.sh split WHEEL_DIR [PREFIX]   (PREFIX: build-wheels)
#        scripts/gpu/wheel-parts.sh join OUT [PREFIX]
set -euo pipefail
part_bytes=${WHEEL_PART_BYTES:-$((46 * 1024 * 1024))}
usage() { sed -n '11,12p' "$0" | sed 's/^# //' >&2; exit 2; }
[ $# -ge 2 ] || usage
command=$1 dir=$2 prefix=${3:-build-wheels}

split_wheels() {
  local wheels=("$dir"/*.whl)
  [ -e "${wheels[0]}" ] || { echo "wheel-parts: no wheel in $dir" >&2; exit 1; }
  local old
  for old in "$prefix"-[0-9]*; do  # an earlier split's folders only
    [ -e "$old" ] || continue
    [ -f "$old/manifest.txt" ] || { echo "wheel-parts: $old is no folder of an earlier split; not replacing it" >&2; exit 1; }
    rm -rf "$old"
  done
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  local manifest=$stage/manifest.txt
  : >"$manifest"
  local w name pieces
  for w in "${wheels[@]}"; do
    name=$(basename "$w")
    split -b "$part_bytes" -d -a 3 "$w" "$stage/$name.piece-"
    pieces=("$stage/$name".piece-*)
    echo "$(sha256sum "$w" | cut -d' ' -f1) $name ${#pieces[@]}" >>"$manifest"
  done
  # The pieces in order, a new folder whenever the next would overflow this one.
  local part=1 used=0 size piece
  mkdir -p "$prefix-$part"
  for piece in "$stage"/*.piece-*; do  # in name order: each wheel's pieces in sequence
    size=$(stat -c %s "$piece")
    if [ "$used" -gt 0 ] && [ $((used + size)) -gt "$part_bytes" ]; then
      part=$((part + 1)) used=0
      mkdir -p "$prefix-$part"
    fi
    mv "$piece" "$prefix-$part/"
    used=$((used + size))
  done
  for ((i = 1; i <= part; i++)); do cp "$manifest" "$prefix-$i/manifest.txt"; done
  echo "wheel-parts: ${#wheels[@]} wheel(s) in $part part(s): $(ls -d "$prefix"-[0-9]* | tr '\n' ' ')"
}

join_wheels() {
  local manifest="" candidate
  for candidate in "$prefix"-[0-9]*/manifest.txt; do
    [ -f "$candidate" ] && manifest=$candidate
  done
  [ -n "$manifest" ] || { echo "wheel-parts: no $prefix-N/manifest.txt here" >&2; exit 1; }
  mkdir -p "$dir"
  local sum name pieces failed=0 i piece tmp
  while read -r sum name pieces; do
    tmp="$dir/.$name.joining"
    : >"$tmp"
    for ((i = 0; i < pieces; i++)); do
      piece=""
      for candidate in "$prefix"-[0-9]*/"$name.piece-$(printf %03d "$i")"; do
        [ -f "$candidate" ] && piece=$candidate
      done
      if [ -z "$piece" ]; then
        echo "wheel-parts: $name: piece $i of $pieces missing (was its part carried?)" >&2
        rm -f "$tmp"
        failed=1
        continue 2
      fi
      cat "$piece" >>"$tmp"
    done
    if [ "$(sha256sum "$tmp" | cut -d' ' -f1)" != "$sum" ]; then
      echo "wheel-parts: $name: sha256 differs from the manifest's" >&2
      rm -f "$tmp"
      failed=1
      continue
    fi
    mv "$tmp" "$dir/$name"
  done <"$manifest"
  [ "$failed" = 0 ] || exit 1
  echo "wheel-parts: $(wc -l <"$manifest") wheel(s) joined into $dir"
}

case "$command" in
  split) split_wheels ;;
  join) join_wheels ;;
  *) usage ;;
esac
