"""Backends made from other backends, for the tests."""


def corrupting_one_row(step):
    """The step, then one element of out's first row moved by 1 (numpy or torch tensors)."""
    def wrapper(**kw):
        step(**kw)
        kw["out"][0, 0, 0, 0] += 1

    wrapper.kda_envelope = getattr(step, "kda_envelope", None)
    wrapper.kda_profile = getattr(step, "kda_profile", "helion")
    return wrapper


def writing_before(step, name):
    """The step, then the element just before tensor `name`'s first written into (torch tensors:
    what a kernel does that reads a padding row's index -1 as a slot)."""
    def wrapper(**kw):
        step(**kw)
        t = kw[name]
        t.as_strided((1,), (1,), t.storage_offset() - 1).fill_(7)

    wrapper.kda_envelope = getattr(step, "kda_envelope", None)
    wrapper.kda_profile = getattr(step, "kda_profile", "helion")
    return wrapper
