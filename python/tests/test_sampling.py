"""The backend suites' sample space from Python: inside an envelope K and V spread over every
size it allows (an envelope of K >= 32 once gave K = 32 to 39 cases of 40), one case in five is a
production shape, and case_stats() shows the spread."""
import kda_harness


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
