#!/usr/bin/env bash
# Whether the kernels' sm_90a machine code is byte-identical to that at a git ref, function by
# function (no GPU needed): each kernels/*.cu is compiled to a cubin at REF and in the working
# tree, and every code section (.text.<function>) at REF must appear unchanged in the working
# tree's cubin. Functions only the working tree has (new instantiations, e.g. the plain
# packed decode's kPlain = true, "Lb1E" in their names) are listed apart. Exit 0 when
# identical.  usage: scripts/kernel_code_unchanged.sh REF
set -euo pipefail
cd "$(dirname "$0")/.."
REF="${1:?usage: kernel_code_unchanged.sh REF}"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ref/kernels" "$work/ref/contract"
git archive "$REF" kernels contract | tar -x -C "$work/ref"
compile() {  # include root, source, cubin
  "$NVCC" -I"$1" -isystem=/usr/include/eigen3 -O3 -DNDEBUG -arch=sm_90a -cubin -std=c++17 -x cu "$2" -o "$3"
}
for cu in kernels/*.cu; do
  name=$(basename "$cu" .cu)
  compile "$work/ref" "$work/ref/$cu" "$work/$name.ref.cubin" &
  compile "$PWD" "$cu" "$work/$name.new.cubin" &
  wait
done
python3 - "$work" <<'PY'
import pathlib, struct, sys

def code_sections(path):
    d = path.read_bytes()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    hdr = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    strtab = hdr[shstrndx][4]
    name = lambda off: d[strtab + off:d.index(b"\0", strtab + off)].decode()
    return {name(h[0]): d[h[4]:h[4] + h[5]] for h in hdr if name(h[0]).startswith(".text.")}

ok = True
for ref in sorted(pathlib.Path(sys.argv[1]).glob("*.ref.cubin")):
    old = code_sections(ref)
    new = code_sections(ref.with_name(ref.name.replace(".ref.", ".new.")))
    kept = sorted(v for n, v in new.items() if "Lb1E" not in n)
    added = sum("Lb1E" in n for n in new)
    same = sorted(old.values()) == kept
    ok &= same
    print(f"{ref.name.split('.')[0]}: {len(old)} functions at the ref, {len(kept)} now (+{added} new "
          f"instantiations): {'byte-identical' if same else 'CHANGED'}")
print("machine code unchanged" if ok else "machine code CHANGED")
sys.exit(0 if ok else 1)
PY
