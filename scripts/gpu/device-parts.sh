# Sourced by the device scripts (fla-device.sh, peers-device.sh): `part NAME SECONDS COMMAND...`
# runs one part of a device run under its own time limit, its output in $OUT/NAME.txt, and adds
# its status, wall time and last lines to $summary (both set by the caller).
part() {
  local name=$1 limit=$2 start
  start=$(date +%s)
  shift 2
  timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
  echo "$name: rc=$? wall=$(($(date +%s) - start)) s" >>"$summary"
  tail -n 12 "$OUT/$name.txt" >>"$summary"
}
