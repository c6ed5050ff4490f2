"""The backend suites' sample space from Python: inside an envelope K and V spread over every
size it allows (an envelope of K >= 32 once gave K = 32 to 39 cases of 40), one case in five is a
production shape, and case_stats() shows the spread."""
import os

import pytest

import kda_harness
import numpy_step


def fields(line):
    return dict(item.split("=", 1) for item in line.split())


def test_k_spreads_over_every_size_an_envelope_allows():
    stats = kda_harness.case_stats(n=300, envelope=kda_harness.Envelope(k=(32, None)))
    ks = stats.counts["K"]
    assert set(ks) == {"32", "64", "128"}
    assert all(n >= 0.2 * stats.cases for n in ks.values()), ks
    assert len(stats.counts["V"]) == 8  # 1 .. 128
    assert stats.production >= 0.2 * stats.cases
    assert "K            32 " in str(stats)


def test_every_flag_is_both_on_and_off_in_every_twenty_cases():
    lines = [fields(kda_harness.config_line(i, seed=4)) for i in range(60)]
    for block in range(3):
        cases = lines[20 * block:20 * (block + 1)]
        for key in ("ff", "l2"):
            assert {c[key] for c in cases} == {"0", "1"}, (block, key)
        assert {c["lb"] == "none" for c in cases} == {True, False}, block


def test_restrict_narrows_the_draws_and_claims_nothing():
    narrow = kda_harness.Envelope(k=(32, None))
    report = kda_harness.check(numpy_step.replayssm_step, suites="kernel", n=6,
                               restrict=kda_harness.Envelope(k=(128, 128), v=(128, 128)))
    assert report.passed, str(report)
    assert all(" K=128 V=128 " in c.replay for c in report.cases)
    # The numpy step computes every K: restricting to K >= 32 is no claim that it refuses K = 16
    # (the envelope suite has nothing outside the whole contract to call: skipped, judging nothing) ...
    restricted = kda_harness.check(numpy_step.replayssm_step, suites="envelope", n=4, restrict=narrow)
    assert (len(restricted.cases), restricted.judged, restricted.failures) == (4, 0, []), str(restricted)
    # ... declaring it as its envelope is, and the envelope suite holds it to that.
    assert not kda_harness.check(numpy_step.replayssm_step, suites="envelope", n=4, envelope=narrow).passed


@pytest.mark.skipif(not os.environ.get("KDA_CRASHING_PLUGIN"), reason="KDA_CRASHING_PLUGIN not set (ctest sets it)")
@pytest.mark.skipif("asan" in os.environ.get("LD_PRELOAD", ""),
                    reason="under AddressSanitizer the planted overrun is ASan's to report, and the crashing "
                           "forked child's report hangs the run")
def test_isolate_turns_a_crash_into_a_failed_case():
    os.environ["KDA_CRASHING_PLUGIN_MODE"] = "overflow"
    plugin = kda_harness.load_plugin(os.environ["KDA_CRASHING_PLUGIN"])
    report = kda_harness.check(plugin, suites="kernel", n=20, isolate=True)
    crashed = [c for c in report.cases if not c.passed]
    assert len(report.cases) == 20 and crashed and len(crashed) < 20
    for c in crashed:
        assert "crashed: killed by signal 6 (SIGABRT" in c.detail, c.detail
        assert " V=2 " in c.replay
    # A crashed case's replay (planned without running it) is the one the case would have
    # reported: the cases with V = 2 are exactly the crashed ones.
    assert {c.index for c in crashed} == {c.index for c in report.cases if " V=2 " in c.replay}
