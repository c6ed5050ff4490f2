# fla-core 0.6.0's recurrent KDA/GDN decode on the GPU against a float64 torch recurrence, outside the harness:
# the facts behind docs/fla-recurrent-decode.md (index rank and strides, padding, speculative
# decoding, T = 1 times). usage (GPU machine, fla-core installed): python scripts/gpu/fla_probe.py
import sys, subprocess, torch, torch.nn.functional as F
from fla.ops.kda.fused_recurrent import fused_recurrent_kda_fwd, fused_recurrent_kda
from fla.ops.gated_delta_rule import fused_recurrent_gated_delta_rule
torch.manual_seed(0)
dev = 'cuda'

def naive(q, k, v, g, beta, h0, scale, vfirst=False):  # per sequence, state [HV,K,V] float64
    B, T, H, K = q.shape; HV, V = v.shape[2], v.shape[3]
    h = h0.double().clone(); o = torch.zeros(B, T, HV, V, dtype=torch.float64, device=q.device)
    hs = []
    for t in range(T):
        for hv in range(HV):
            hh = hv // (HV // H)
            qq = q[:, t, hh].double() * scale; kk = k[:, t, hh].double(); vv = v[:, t, hv].double()
            gg = g[:, t, hv].double(); bb = beta[:, t, hv].double()
            S = h[:, hv] * torch.exp(gg)[:, :, None]
            u = bb[:, None] * (vv - torch.einsum('bk,bkv->bv', kk, S))
            S = S + kk[:, :, None] * u[:, None, :]
            h[:, hv] = S
            o[:, t, hv] = torch.einsum('bk,bkv->bv', qq, S)
        hs.append(h.clone())
    return o, hs

def inputs(B, T, H, HV, K, V):
    q = torch.randn(B, T, H, K, device=dev); k = F.normalize(torch.randn(B, T, H, K, device=dev), dim=-1)
    v = torch.randn(B, T, HV, V, device=dev); g = F.logsigmoid(torch.rand(B, T, HV, K, device=dev))
    beta = torch.rand(B, T, HV, device=dev).sigmoid()
    return q, k, v, g, beta

def err(a, b): return (a.double() - b.double()).abs().max().item()

print('torch', torch.__version__, 'gpu', torch.cuda.get_device_name())
B, T, H, HV, K, V, N = 4, 1, 2, 4, 128, 128, 8
q, k, v, g, beta = inputs(B, T, H, HV, K, V)
pool = torch.randn(N, HV, K, V, device=dev)
idx = torch.tensor([5, 1, 7, 2], device=dev, dtype=torch.int32)
ref_o, hs = naive(q, k, v, g, beta, pool[idx.long()], K ** -0.5)
p2 = pool.clone()
o, _ = fused_recurrent_kda_fwd(q, k, v, g, beta, initial_state=p2, inplace_final_state=True, ssm_state_indices=idx)
print('T=1 1-D idx: out err', err(o, ref_o), 'state err', err(p2[idx.long()], hs[-1]),
      'untouched slots same', torch.equal(p2[[0, 3, 4, 6]], pool[[0, 3, 4, 6]]))
# state_v_first
pv = pool.transpose(-1, -2).contiguous()
o, _ = fused_recurrent_kda_fwd(q, k, v, g, beta, initial_state=pv, inplace_final_state=True, ssm_state_indices=idx, state_v_first=True)
print('state_v_first: out err', err(o, ref_o), 'state err', err(pv[idx.long()].transpose(-1, -2), hs[-1]))
# spec decoding T=3, 2-D indices, num_accepted
T = 3; N = 16
q, k, v, g, beta = inputs(B, T, H, HV, K, V)
pool = torch.randn(N, HV, K, V, device=dev)
idx2 = torch.arange(B * T, device=dev, dtype=torch.int32).reshape(B, T)
nat = torch.tensor([1, 2, 3, 1], device=dev, dtype=torch.int32)
start = pool[idx2[torch.arange(B), nat.long() - 1].long()]
ref_o, hs = naive(q, k, v, g, beta, start, K ** -0.5)
p2 = pool.clone()
o, _ = fused_recurrent_kda_fwd(q, k, v, g, beta, initial_state=p2, inplace_final_state=True, ssm_state_indices=idx2, num_accepted_tokens=nat)
print('spec T=3: out err', err(o, ref_o), 'per-token states err', max(err(p2[idx2[:, t].long()], hs[t]) for t in range(T)))
# 1-D indices with T=3 (no spec): which slots are read/written?
p2 = pool.clone(); idx1 = torch.tensor([12, 13, 14, 15], device=dev, dtype=torch.int32)
o, _ = fused_recurrent_kda_fwd(q, k, v, g, beta, initial_state=p2, inplace_final_state=True, ssm_state_indices=idx1)
changed = [i for i in range(N) if not torch.equal(p2[i], pool[i])]
print('1-D idx at T=3: slots changed', changed)
# transposed (non-contiguous) 2-D indices
idxT = torch.arange(B * T, device=dev, dtype=torch.int32).reshape(T, B).t()
p2 = pool.clone(); start = pool[idxT[:, 0].long()]
ref_o, hs = naive(q, k, v, g, beta, start, K ** -0.5)
o, _ = fused_recurrent_kda_fwd(q, k, v, g, beta, initial_state=p2, inplace_final_state=True, ssm_state_indices=idxT)
print('non-contiguous 2-D idx: out err', err(o, ref_o), 'states err', max(err(p2[idxT[:, t].long()], hs[t]) for t in range(T)))
# padding -1 in a guarded pool (slot -1 lies inside the allocation)
T = 1
q, k, v, g, beta = inputs(B, T, H, HV, K, V)
big = torch.randn(N + 1, HV, K, V, device=dev); before = big.clone(); pool = big[1:]
idx = torch.tensor([3, -1, 5, 6], device=dev, dtype=torch.int32)
o, _ = fused_recurrent_kda_fwd(q, k, v, g, beta, initial_state=pool, inplace_final_state=True, ssm_state_indices=idx)
torch.cuda.synchronize()
print('padding -1: guard slot (pool[-1] address) written', not torch.equal(big[0], before[0]),
      'out row 1 finite', bool(torch.isfinite(o[1]).all()))
# GDN public API
q, k, v, _, beta = inputs(B, 2, H, HV, K, V); gs = F.logsigmoid(torch.rand(B, 2, HV, device=dev))
h0 = torch.randn(B, HV, K, V, device=dev)
o, ht = fused_recurrent_gated_delta_rule(q, k, v, g=gs, beta=beta, initial_state=h0, output_final_state=True)
ref_o, hs = naive(q, k, v, gs[..., None].expand(B, 2, HV, K), beta, h0, K ** -0.5)
print('GDN public: out err', err(o, ref_o), 'final err', err(ht, hs[-1]))
# timing of the KDA decode at T=1 (CUDA events, median of 50)
for (B, H, HV) in [(1, 32, 32), (32, 32, 32), (256, 32, 32)]:
    K = V = 128; N = B + 8
    q, k, v, g, beta = inputs(B, 1, H, HV, K, V); pool = torch.randn(N, HV, K, V, device=dev)
    idx = torch.randperm(N, device=dev)[:B].int()
    ts = []
    for i in range(60):
        s, e = torch.cuda.Event(True), torch.cuda.Event(True); s.record()
        fused_recurrent_kda_fwd(q, k, v, g, beta, initial_state=pool, inplace_final_state=True, ssm_state_indices=idx)
        e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ts = sorted(ts[10:]); print(f'time B={B} H={H} T=1 K=V=128: median {ts[len(ts)//2]*1e3:.1f} us')
