"""What a backend accepts (plugin.h's kda_envelope): the harness samples inside it, and checks
that it refuses calls just outside. The same type, passed as `restrict`, only narrows where the
harness samples (Envelope.narrowed), claiming nothing about what the backend refuses."""
from dataclasses import dataclass

from . import _abi

FLOATS = ("float32", "bfloat16", "float16")
_NO_LIMIT = 2**63 - 1
INDICES = ("int32", "int64")


def _limit(x):
    return _NO_LIMIT if x is None else x


@dataclass(frozen=True)
class Envelope:
    act_dtypes: tuple = FLOATS    # mixed_qkv, a, b, A_log, dt_bias
    state_dtypes: tuple = FLOATS  # initial_state
    ring_dtypes: tuple = FLOATS   # d_cache, k_cache (g_cache is float32)
    out_dtypes: tuple = FLOATS    # out
    index_dtypes: tuple = INDICES  # ssm_state_indices
    k: tuple = (1, None)          # K: powers of two in [min, max]; None: no maximum
    v: tuple = (1, None)          # V
    l_max: int = 0                # the longest ring; 0: no limit
    strided: bool = True          # False: compact tensors only
    # How the step treats a runtime-invalid row (a slot past the pool, a cursor outside the ring,
    # two rows on one slot): "none" (SGLang's contract: the caller's duty; never fed, nothing
    # claimed) or "raise" (refuses the call, nothing written). Padding rows (slot -1) are tested
    # under both. Not narrowed by a restriction.
    invalid_rows: str = "none"
    # The ring variants the step serves (spec circular-replay.md): "linear" (records from 0, a
    # natural flush a full checkpoint) and "circular" (circular_replay with cache_base; a natural
    # flush a history checkpoint; gdn_replayssm, kda_triton_replayssm), "prefix_gates"
    # (prefix_gate_cache set) and "predecayed_keys" (predecayed_k_cache set; kda_triton_replayssm).
    # A call of a variant the operator has and this lacks is outside: the step must refuse it.
    # Not narrowed by a restriction.
    ring_modes: tuple = ("linear",)

    def narrowed(self, restrict):
        """What both this envelope and `restrict` (an Envelope, or None: no restriction)
        allow: where check(restrict=...) and cases(restrict=...) draw."""
        if restrict is None:
            return self

        def both(a, b):
            return tuple(t for t in a if t in b)

        def bounds(a, b):
            highs = [x for x in (a[1], b[1]) if x is not None]
            return (max(a[0], b[0]), min(highs) if highs else None)

        l_max = min(x for x in (self.l_max, restrict.l_max) if x) if (self.l_max or restrict.l_max) else 0
        return Envelope(both(self.act_dtypes, restrict.act_dtypes), both(self.state_dtypes, restrict.state_dtypes),
                        both(self.ring_dtypes, restrict.ring_dtypes), both(self.out_dtypes, restrict.out_dtypes),
                        both(self.index_dtypes, restrict.index_dtypes), bounds(self.k, restrict.k),
                        bounds(self.v, restrict.v), l_max, self.strided and restrict.strided, self.invalid_rows,
                        self.ring_modes)

    def to_c(self, device_type=_abi.KDL_CPU):
        def bits(names):
            unknown = [n for n in names if n not in _abi.DTYPE_BITS]
            if unknown:
                raise ValueError(f"unknown dtypes {unknown} (known: {sorted(_abi.DTYPE_BITS)})")
            return sum(_abi.DTYPE_BITS[n] for n in set(names))

        return _abi.KdaEnvelope(bits(self.act_dtypes), bits(self.state_dtypes), bits(self.ring_dtypes),
                                bits(self.out_dtypes), bits(self.index_dtypes), self.k[0], _limit(self.k[1]),
                                self.v[0], _limit(self.v[1]), self.l_max, int(self.strided), device_type)

    def invalid_rows_code(self):
        """plugin.h's KDA_INVALID_ROWS_* of invalid_rows; a ValueError for another word."""
        try:
            return _abi.INVALID_ROWS[self.invalid_rows]
        except KeyError:
            raise ValueError(f"invalid_rows must be one of {sorted(_abi.INVALID_ROWS)}, not {self.invalid_rows!r}") \
                from None

    def ring_modes_code(self):
        """plugin.h's KDA_RING_* bits of ring_modes; a ValueError for another word or none."""
        unknown = [m for m in self.ring_modes if m not in _abi.RING_MODES]
        if unknown or not self.ring_modes or isinstance(self.ring_modes, str):
            raise ValueError(f"ring_modes must be a non-empty tuple of {sorted(_abi.RING_MODES)}, not "
                             f"{self.ring_modes!r}")
        return sum(_abi.RING_MODES[m] for m in set(self.ring_modes))

    @classmethod
    def from_c(cls, e, invalid_rows=0, ring_modes=_abi.RING_MODES["linear"]):
        """The envelope of a kda_envelope, with a plugin's invalid_rows (KDA_INVALID_ROWS_*) and
        ring_modes (KDA_RING_* bits; 0 reads as linear)."""
        def names(mask):
            return tuple(n for n, b in _abi.DTYPE_BITS.items() if mask & b)

        def limit(x):
            return None if x == _NO_LIMIT else x

        return cls(names(e.act_dtypes), names(e.state_dtypes), names(e.ring_dtypes), names(e.out_dtypes),
                   names(e.index_dtypes), (e.k_min, limit(e.k_max)), (e.v_min, limit(e.v_max)), e.l_max,
                   bool(e.strided), next(n for n, c in _abi.INVALID_ROWS.items() if c == invalid_rows),
                   tuple(n for n, b in _abi.RING_MODES.items() if (ring_modes or _abi.RING_MODES["linear"]) & b))
