#!/usr/bin/env bash
# Stages what scripts/gpu/gdn-device.sh runs: the GDN and KDA kernel tests, kda-harness and the
# benchmark of a build, stripped, in build-carry-gdnkernel/gdn.tar.xz (ignored: /build*/); carry
# that path. The golden set kda-harness check reads travels with the tree (golden/, tracked).
# usage: scripts/gpu/gdn-stage.sh [BUILD]   (default build; it builds what it stages first,
#   scripts/gpu/build-staged.sh: kernel_gdn_test kernel_gdn_circular_test kernel_vs_reference_test
#   kernel_adversarial_test kernel_graph_test kernel_launcher_test tools/kda-harness replayssm_bench)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD="${1:-build}"
tests=(kernel_gdn kernel_gdn_circular kernel_vs_reference kernel_adversarial kernel_graph kernel_launcher)
staged=()
for t in "${tests[@]}"; do staged+=("property_tests/${t}_test"); done
bash scripts/gpu/build-staged.sh "$BUILD" "${staged[@]}" tools/kda-harness bench/replayssm_bench ||
  { echo "gdn-stage: nothing staged" >&2; exit 1; }
stage=$(mktemp -d)
mkdir -p "$stage/bin" build-carry-gdnkernel
for t in "${tests[@]}"; do
  strip -o "$stage/bin/${t}_test" "$BUILD/property_tests/${t}_test"
done
strip -o "$stage/bin/replayssm_bench" "$BUILD/bench/replayssm_bench"
strip -o "$stage/bin/kda-harness" "$BUILD/tools/kda-harness"
tar cJf build-carry-gdnkernel/gdn.tar.xz -C "$stage" bin
rm -rf "$stage"
du -h build-carry-gdnkernel/gdn.tar.xz
