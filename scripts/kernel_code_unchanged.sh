#!/usr/bin/env bash
# Whether the kernels' sm_90a machine code is byte-identical to that at a git ref, function by
# function (no GPU needed): each kernels/*.cu is compiled to a cubin at REF and in the working
# tree, and every code section (.text.<function>) at REF must appear unchanged in the working
# tree's cubin (matched by their code: names carry a hash of the file). Functions only the
# working tree has (new instantiations) are counted apart.
# Exit 0 when identical.  usage: scripts/kernel_code_unchanged.sh REF
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
from collections import Counter
from collections import Counter

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
    old = Counter(code_sections(ref).values())
    new = Counter(code_sections(ref.with_name(ref.name.replace(".ref.", ".new."))).values())
    # Names carry a hash of the file (anonymous namespaces), so functions are matched by their
    # code: every function of the ref must be there byte for byte; the others are new.
    same = not (old - new)
    added = sum((new - old).values())
    ok &= same
    print(f"{ref.name.split('.')[0]}: {sum(old.values())} functions at the ref, {sum((old & new).values())} of them "
          f"unchanged now (+{added} other functions): {'byte-identical' if same else 'CHANGED'}")
print("machine code unchanged" if ok else "machine code CHANGED")
sys.exit(0 if ok else 1)
PY
