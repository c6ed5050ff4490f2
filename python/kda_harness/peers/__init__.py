"""Step functions over kernels other projects ship, called as a user who installed them with pip
calls them, each with its operator (kda_op), rounding profile, envelope and, for a kernel that
serves one mode of its operator, its pin (kda_pin) as attributes, so that
kda_harness.check(step, device="cuda") judges it. Importing a module here imports nothing of the
other project; a step imports it on its first call."""


def installed_version(distribution):
    """The version of an installed distribution ("fla-core"), "" when it is not installed."""
    try:
        from importlib.metadata import version
        return version(distribution)
    except Exception:
        return ""
