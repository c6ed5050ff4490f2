"""Step functions over kernels other projects ship, called as a user who installed them with pip
calls them, each with its operator (kda_op), rounding profile, envelope and, for a kernel that
serves one mode of its operator, its pin (kda_pin) as attributes, so that
kda_harness.check(step, device="cuda") judges it. Importing a module here imports nothing of the
other project; a step imports it on its first call."""


def refuse_other_call_forms(library, q, ssm_state_indices, num_accepted_tokens, use_gate_in_kernel,
                            use_beta_sigmoid_in_kernel, state_v_first, allow_neg_eigval, lower_bound=None):
    """A ValueError, before anything is written, for a call of a form a one-token decode lacks (the
    fla operators' calls other than T=1 idx2d=0 nat=0 vfirst=1 gik=1 bsig=1 without lower_bound):
    a caller's duty that the step's kda_pin keeps the suites from asking for."""
    if not (use_gate_in_kernel and use_beta_sigmoid_in_kernel and state_v_first) or allow_neg_eigval \
            or lower_bound is not None or num_accepted_tokens is not None or q.shape[1] != 1 or ssm_state_indices.ndim != 1:
        raise ValueError(f"{library} takes one token per sequence, [B] indices, a V-first pool, the gate and beta "
                         "sigmoid in the kernel, no lower_bound, no num_accepted_tokens")


def installed_version(distribution):
    """The version of an installed distribution ("fla-core"), "" when it is not installed."""
    try:
        from importlib.metadata import version
        return version(distribution)
    except Exception:
        return ""
