// The kernel's host side for any operator's launcher (operators/<op>/cuda_launch.cpp): the
// kernel's plain parameters of a call's DLPack views, the check of the row-status tensor, and
// the enqueue of one step on plain parameters. No validation: a launcher applies its
// operator's contract (or checks what the kernel reads) first. No host synchronization,
// allocation or device->host copy, so a launch can be captured into a CUDA graph.
#pragma once
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

#include <cstdint>

#include "contract/step_args.hpp"
#include "kernels/replayssm_params.hpp"

namespace kda::cuda {

// The gates' form: one per key channel (a [B, HV*K] or [B, HV, K], dt_bias [HV*K] or [HV, K],
// g_cache [slots, HV, L, K]) or one per value head (a [B, HV], dt_bias [HV], g_cache
// [slots, HV, L], whose unused trailing K stride stays 0: the broadcast, ReplayParams::scalar_gate).
enum class Gates { PerChannel, PerHead };

// The tensor with its own strides (its dtype and rank already checked).
detail::TensorRef tensor_ref(const DLTensor& t);

// The kernel's parameters of a call of `dims` (absent rings, write_pos and force_flush stay
// null), with its dense-layout flags; row_status, when given, receives the rows' flags. A
// mutant build (KDA_MUTANT, kernels/launch_mutants.hpp) plants its launch bug here.
detail::ReplayParams replayssm_params(const StepArgs& args, const Dims& dims, DLTensor* row_status,
                                      Gates gates = Gates::PerChannel);

// A row_status tensor must be 1-D int32 of B elements on `like`'s device with a positive
// stride; std::invalid_argument otherwise (the harness's own argument, not a contract error).
void check_row_status(const DLTensor& row_status, const DLTensor& like, int64_t B);

// Enqueues one step of `p` on `stream`, on the device of args.mixed_qkv (the caller's current
// device restored after). A grid past the launch limit throws std::invalid_argument, a failed
// launch (cudaGetLastError after it) std::runtime_error.
void enqueue(const StepArgs& args, const detail::ReplayParams& p, cudaStream_t stream);

}  // namespace kda::cuda
