#include "reference/profile_emulation.hpp"

#include <cmath>
#include <limits>

#include "contract/validate.hpp"
#include "reference/layer_inputs.hpp"
#include "reference/tensor_io.hpp"

namespace kda::reference {
namespace {

// A format a value is rounded to: explicit mantissa bits and smallest normal (TF32 keeps
// float32's exponent range, float16 has its own).
struct Format {
  int mantissa_bits;
  double smallest_normal;
  double largest;  // beyond it: infinity
};
constexpr Format kFloat32{23, 0x1p-126, 0x1.fffffep127};
constexpr Format kBFloat16{7, 0x1p-126, 0x1.fep127};
constexpr Format kFloat16{10, 0x1p-14, 65504.0};
constexpr Format kTf32{10, 0x1p-126, 0x1.ffcp127};

Format format_of(ScalarType t) {
  switch (t) {
    case ScalarType::BFloat16: return kBFloat16;
    case ScalarType::Float16: return kFloat16;
    default: return kFloat32;
  }
}

// A value as the emulated kernel holds it (e) beside the exact value of the same quantity (x).
struct Num {
  double e, x;
};
Num exact(double v) { return {v, v}; }

// The step of one emulated call: the profile's rounding rules and the operations.
struct Arith {
  EmulatedProfile p;

  // e rounded to f: to nearest even; toward zero (truncate); or, directed, to the neighbour
  // on the side away from the exact value x (away from zero where e equals x).
  double round(double e, double x, const Format& f, bool truncate = false) const {
    if (e == 0 || !std::isfinite(e)) return e;
    const double a = std::fabs(e);
    int exponent = 0;
    std::frexp(a, &exponent);  // a = m 2^exponent, m in [0.5, 1)
    const double q = a >= f.smallest_normal ? std::ldexp(1.0, exponent - 1 - f.mantissa_bits)
                                            : std::ldexp(f.smallest_normal, -f.mantissa_bits);
    const double lo = std::floor(e / q) * q, hi = lo + q;
    if (lo == e) return e;
    double r;
    if (truncate) r = e > 0 ? lo : hi;
    else if (p.directed) r = e > x ? hi : e < x ? lo : (e > 0 ? hi : lo);
    else {
      const double below = e - lo, above = hi - e;
      r = below < above ? lo : above < below ? hi : (std::fmod(lo / q, 2.0) == 0 ? lo : hi);
    }
    return std::fabs(r) > f.largest ? std::copysign(std::numeric_limits<double>::infinity(), r) : r;
  }
  Num to(const Format& f, Num n, bool truncate = false) const { return {round(n.e, n.x, f, truncate), n.x}; }
  // The same for float32 through the hardware's conversion (round to nearest even): the hot path.
  Num r32(Num n) const {
    const float r = static_cast<float>(n.e);
    if (static_cast<double>(r) == n.e || !p.directed || !std::isfinite(r)) return {r, n.x};
    const bool up = n.e > n.x || (n.e == n.x && n.e > 0);
    const float other = std::nextafter(r, up ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
    // r is one neighbour of e; the one on the side away from x is r or the next float that way.
    return {(static_cast<double>(r) > n.e) == up ? r : other, n.x};
  }

  Num add(Num a, Num b) const { return r32({a.e + b.e, a.x + b.x}); }
  Num sub(Num a, Num b) const { return r32({a.e - b.e, a.x - b.x}); }
  Num mul(Num a, Num b) const { return r32({a.e * b.e, a.x * b.x}); }
  Num div(Num a, Num b) const { return r32({a.e / b.e, a.x / b.x}); }
  Num neg(Num a) const { return {-a.e, -a.x}; }
  Num exp(Num a) const { return r32({std::exp(a.e), std::exp(a.x)}); }
  Num log1p(Num a) const { return r32({std::log1p(a.e), std::log1p(a.x)}); }
  Num sqrt(Num a) const { return r32({std::sqrt(a.e), std::sqrt(a.x)}); }
  // A float32 constant: the kernel's conversion of a double argument.
  Num constant(double v) const { return r32(exact(v)); }
  // Sequential float32 dot product of n terms.
  Num dot(const Num* a, const Num* b, int64_t n) const {
    Num acc = mul(a[0], b[0]);
    for (int64_t i = 1; i < n; ++i) acc = add(acc, mul(a[i], b[i]));
    return acc;
  }
};

using Nums = std::vector<Num>;

// A tensor's elements as an emulated kernel reads them: the stored value, and the shadow's
// exact value where the emulation wrote one.
struct TensorSide {
  DLTensor& t;
  std::unordered_map<int64_t, double>& shadow;
  int64_t s0, s1, s2, s3;
  TensorSide(DLTensor& tensor, std::unordered_map<int64_t, double>& sh)
      : t(tensor), shadow(sh), s0(io::stride_of(tensor, 0)), s1(io::stride_of(tensor, 1)),
        s2(io::stride_of(tensor, 2)), s3(io::stride_of(tensor, 3)) {}
  // rows x cols elements of [i0, i1, i2.., 0..]
  Nums read(int64_t i0, int64_t i1, int64_t i2, int64_t rows, int64_t cols) const {
    Matrix<double> m;
    const int64_t base = i0 * s0 + i1 * s1 + i2 * s2;
    io::gather(t, {base, rows, s2, cols, s3}, m);
    Nums out(static_cast<std::size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        const auto it = shadow.find(base + r * s2 + c * s3);
        const double v = m(r, c);
        out[static_cast<std::size_t>(r * cols + c)] = {v, it == shadow.end() ? v : it->second};
      }
    return out;
  }
  // Values already representable in the tensor's dtype: the store is exact.
  void write(int64_t i0, int64_t i1, int64_t i2, int64_t rows, int64_t cols, const Nums& v) {
    Matrix<double> m(rows, cols);
    const int64_t base = i0 * s0 + i1 * s1 + i2 * s2;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        const Num& n = v[static_cast<std::size_t>(r * cols + c)];
        m(r, c) = n.e;
        shadow[base + r * s2 + c * s3] = n.x;
      }
    io::scatter(t, {base, rows, s2, cols, s3}, m);
  }
};

// One token's per-head inputs, emulated: q scaled, k (both normalized if asked), v, g, beta.
struct Head {
  Nums q, k, v, g;
  Num beta;
};

Head prepare(const Arith& A, const LayerParams<double>& p, const TokenInputs<double>& in, int64_t row, int64_t hv) {
  const Dims& d = p.dims;
  const int64_t h = hv / (d.HV / d.H);
  Head t;
  for (int64_t c = 0; c < d.K; ++c) {
    t.q.push_back(exact(in.qkv(row, h * d.K + c)));
    t.k.push_back(exact(in.qkv(row, d.H * d.K + h * d.K + c)));
  }
  for (int64_t e = 0; e < d.V; ++e) t.v.push_back(exact(in.qkv(row, 2 * d.H * d.K + hv * d.V + e)));
  if (p.l2norm) {
    const Num eps = A.constant(1e-6);
    for (Nums* x : {&t.q, &t.k}) {
      const Num norm = A.sqrt(A.add(A.dot(x->data(), x->data(), d.K), eps));
      for (Num& xi : *x) xi = A.div(xi, norm);
    }
  }
  const Num scale = A.constant(p.scale);
  for (Num& qi : t.q) qi = A.mul(qi, scale);
  const Num decay_rate = A.exp(exact(p.A_log(hv)));
  for (int64_t c = 0; c < d.K; ++c) {
    const Num x = A.add(exact(in.a(row, hv * d.K + c)), exact(p.dt_bias(hv, c)));
    if (p.lower_bound) {
      const Num one = exact(1.0), lb = A.constant(*p.lower_bound);
      t.g.push_back(A.div(lb, A.add(one, A.exp(A.neg(A.mul(decay_rate, x))))));
    } else {
      const Num softplus = x.e <= 20 ? A.log1p(A.exp(x)) : x;
      t.g.push_back(A.neg(A.mul(decay_rate, softplus)));
    }
  }
  // beta: a step function of the float32 sigmoid, part of the function (LayerParams::beta_dtype).
  const float b = static_cast<float>(in.b(row, hv));
  t.beta = exact(io::round_through(p.beta_dtype, 1.0f / (1.0f + std::exp(-b))));
  return t;
}

// The token on the state S [V x K] before it: S <- S diag(exp(g)), d = beta (v - S k),
// o = S q + d (k . q) (the ReplaySSM kernels' form); returns o, leaves S decayed, d in d_out.
Nums token_on(const Arith& A, Nums& S, const Head& t, int64_t V, int64_t K, Nums& d) {
  Nums decay(static_cast<std::size_t>(K));
  for (int64_t c = 0; c < K; ++c) decay[c] = A.exp(t.g[c]);
  for (int64_t e = 0; e < V; ++e)
    for (int64_t c = 0; c < K; ++c) S[e * K + c] = A.mul(S[e * K + c], decay[c]);
  d.assign(static_cast<std::size_t>(V), {});
  const Num kq = A.dot(t.k.data(), t.q.data(), K);
  Nums o(static_cast<std::size_t>(V));
  for (int64_t e = 0; e < V; ++e) {
    d[e] = A.mul(t.beta, A.sub(t.v[e], A.dot(&S[e * K], t.k.data(), K)));
    o[e] = A.add(A.dot(&S[e * K], t.q.data(), K), A.mul(d[e], kq));
  }
  return o;
}

// S + d k^T in float32.
void add_outer(const Arith& A, Nums& S, const Nums& d, const Nums& k, int64_t V, int64_t K) {
  for (int64_t e = 0; e < V; ++e)
    for (int64_t c = 0; c < K; ++c) S[e * K + c] = A.add(S[e * K + c], A.mul(d[e], k[c]));
}

Nums stored(const Arith& A, const Format& f, Nums v) {
  for (Num& n : v) n = A.to(f, n);
  return v;
}

// out is contiguous (V8): out[row, 0, hv, :] starts at (row * HV + hv) * V.
void zero_row(DLTensor& out, int64_t row, const Dims& dm) { io::zero(out, {row * dm.HV * dm.V, 1, 0, dm.HV * dm.V, 1}); }
void write_out(DLTensor& out, int64_t row, int64_t hv, const Dims& dm, const Nums& o) {
  Matrix<double> m(1, dm.V);
  for (int64_t e = 0; e < dm.V; ++e) m(0, e) = o[static_cast<std::size_t>(e)].e;
  io::scatter(out, {(row * dm.HV + hv) * dm.V, 1, 0, dm.V, 1}, m);
}

}  // namespace

Dims ProfileEmulation::replayssm_step(const StepArgs& args) {
  const Dims dm = validate(args, Backend::Cpu);
  check_runtime_values(args, dm);
  const Arith A{p_};
  const auto params = load_params<double>(args, dm);
  const auto token = load_token<double>(args, dm);
  const auto write_pos = io::read_indices(*args.write_pos);
  const auto force = args.force_flush ? io::read_indices(*args.force_flush) : std::vector<int64_t>(dm.B, 0);
  const ScalarType out_type = *scalar_type_of(args.out->dtype);
  const Format out_f = format_of(out_type), state_f = format_of(*scalar_type_of(args.initial_state->dtype));
  const Format ring_f = format_of(*scalar_type_of(args.d_cache->dtype));
  const Format key_f = format_of(*scalar_type_of(args.k_cache->dtype));
  // The rebuild's dot operands: out's dtype; TF32, truncated, for Triton with float32 out.
  const bool truncated_tf32 = p_.tf32_dots && out_type == ScalarType::Float32;
  const Format operand_f = truncated_tf32 ? kTf32 : out_f;
  TensorSide S0t(*args.initial_state, state_.values), Dt(*args.d_cache, d_ring_.values),
      Kt(*args.k_cache, k_ring_.values), Gt(*args.g_cache, g_ring_.values);
  const int64_t group = dm.HV / dm.H, V = dm.V, K = dm.K;
  for (int64_t row = 0; row < dm.B; ++row) {
    const int64_t slot = token.slot[static_cast<std::size_t>(row)];
    if (slot < 0) {
      zero_row(*args.out, row, dm);
      continue;
    }
    const int64_t n = write_pos[static_cast<std::size_t>(row)];
    const bool flush = n == dm.L - 1 || force[static_cast<std::size_t>(row)] != 0;
    for (int64_t hv = 0; hv < dm.HV; ++hv) {
      const int64_t h = hv / group;
      const Head t = prepare(A, params, token, row, hv);
      Nums S = S0t.read(slot, hv, 0, V, K);
      if (n > 0) {
        const Nums D = Dt.read(slot, hv, 0, n, V), Kr = Kt.read(slot, h, 0, n, K), G = Gt.read(slot, hv, 0, n, K);
        Nums prefix = G;
        for (int64_t j = 1; j < n; ++j)
          for (int64_t c = 0; c < K; ++c) prefix[j * K + c] = A.add(prefix[(j - 1) * K + c], G[j * K + c]);
        const Num* total = &prefix[(n - 1) * K];
        Nums W(static_cast<std::size_t>(n * K)), Dop(D.size());
        for (int64_t j = 0; j < n; ++j)
          for (int64_t c = 0; c < K; ++c)
            W[j * K + c] = A.to(operand_f, A.mul(Kr[j * K + c], A.exp(A.sub(total[c], prefix[j * K + c]))), truncated_tf32);
        for (std::size_t i = 0; i < D.size(); ++i) Dop[i] = A.to(operand_f, D[i], truncated_tf32);
        for (int64_t c = 0; c < K; ++c) {
          const Num total_decay = A.exp(total[c]);
          for (int64_t e = 0; e < V; ++e) {
            // The tensor core: exact products of the operands, float32 accumulation.
            Num acc = A.mul(S[e * K + c], total_decay);
            for (int64_t j = 0; j < n; ++j) acc = A.add(acc, A.mul(Dop[j * V + e], W[j * K + c]));
            S[e * K + c] = acc;
          }
        }
      }
      Nums d;
      const Nums o = token_on(A, S, t, V, K, d);
      write_out(*args.out, row, hv, dm, stored(A, out_f, o));
      if (flush) {
        add_outer(A, S, d, t.k, V, K);
        S0t.write(slot, hv, 0, V, K, stored(A, state_f, S));
      } else {
        Dt.write(slot, hv, n, 1, V, stored(A, ring_f, d));
        Gt.write(slot, hv, n, 1, K, t.g);  // float32 already
        if (hv % group == 0) {
          const Nums k = p_.keys_through_out ? stored(A, out_f, t.k) : t.k;
          Kt.write(slot, h, n, 1, K, stored(A, key_f, k));
        }
      }
    }
  }
  return dm;
}

Dims ProfileEmulation::packed_decode_step(const StepArgs& args, const Dims& dm) {
  check_runtime_values(args, dm);
  const Arith A{p_};
  LayerParams<double> params = load_params<double>(args, dm);
  params.beta_dtype = ScalarType::Float32;  // sigmoid(b.float()) kept in float32
  const auto token = load_token<double>(args, dm);
  const Format out_f = format_of(*scalar_type_of(args.out->dtype));
  const Format state_f = format_of(*scalar_type_of(args.initial_state->dtype));
  TensorSide St(*args.initial_state, state_.values);
  const int64_t V = dm.V, K = dm.K;
  for (int64_t row = 0; row < dm.B; ++row) {
    const int64_t slot = token.slot[static_cast<std::size_t>(row)];
    if (slot < 0) {
      zero_row(*args.out, row, dm);
      continue;
    }
    for (int64_t hv = 0; hv < dm.HV; ++hv) {
      const Head t = prepare(A, params, token, row, hv);
      Nums S = St.read(slot, hv, 0, V, K);
      // The plain decode: decay, delta, update, then o = S q on the updated state.
      Nums decay(static_cast<std::size_t>(K));
      for (int64_t c = 0; c < K; ++c) decay[c] = A.exp(t.g[c]);
      for (int64_t e = 0; e < V; ++e)
        for (int64_t c = 0; c < K; ++c) S[e * K + c] = A.mul(S[e * K + c], decay[c]);
      Nums d(static_cast<std::size_t>(V));
      for (int64_t e = 0; e < V; ++e) d[e] = A.mul(t.beta, A.sub(t.v[e], A.dot(&S[e * K], t.k.data(), K)));
      add_outer(A, S, d, t.k, V, K);
      Nums o(static_cast<std::size_t>(V));
      for (int64_t e = 0; e < V; ++e) o[e] = A.dot(&S[e * K], t.q.data(), K);
      write_out(*args.out, row, hv, dm, stored(A, out_f, o));
      St.write(slot, hv, 0, V, K, stored(A, state_f, S));
    }
  }
  return dm;
}

}  // namespace kda::reference
