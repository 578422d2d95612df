"""advice/options.py: each option present and absent, over the committed H200 traces, benchmark
files and store; the numbers against hand-computed ones; missing evidence named, never guessed."""

import pytest
from advice_data import GIB, MIB, STAGING, TRANSFER, h200_runs, trace, variant
from pinreport.advice.build import build_advice
from pinreport.advice.evidence import RUN_STORE, load_benches
from pinreport.advice.options import (
    NOTE_HOW,
    OVER_ALLOCATION,
    PAGEABLE,
    REGISTER_WINDOW,
    STAGING_RING,
    TORCH_SETTING,
    next_power_of_two,
    power_of_two,
)

BENCHES = load_benches([str(TRANSFER), str(STAGING)])


def _options(t, runs=None, benches=BENCHES, **kw):
    a = build_advice(t, h200_runs() if runs is None else runs, benches, store_given=runs != [], **kw)
    return {o.name: o for o in a.program.options}, a


def test_powers_of_two():
    assert [next_power_of_two(n) for n in (1, 2, 3, 300 * MIB, 768 * MIB, GIB)] == [1, 2, 4, 512 * MIB, GIB, GIB]
    assert power_of_two(512 * MIB) and not power_of_two(300 * MIB) and not power_of_two(0)


def test_over_allocation_of_the_pinned_dataloader_is_its_rounding():
    o, _ = _options(trace("trace-dataloader-w4.json"))
    over = o[OVER_ALLOCATION]
    assert over.complete
    assert over.bytes_saved == 10 * (512 - 300) * MIB, "10 blocks of 512 MiB for batches of 300 MiB"
    assert over.bytes_after == 3000 * MIB
    assert over.speed == 1.0
    assert TORCH_SETTING in over.notes and "pinned_use_cuda_host_register" in TORCH_SETTING
    assert 3 * MIB < over.vram_saved < 5 * MIB, "about 2 MiB per GiB on this driver"
    assert over.vram_basis == "store fit"


@pytest.mark.parametrize("name", ["trace-apis-malloc_host-touch1.json", "trace-apis-vmm-touch1.json"])
def test_over_allocation_is_absent_where_every_size_held_is_one_the_program_asked(name):
    over = _options(trace(name))[0][OVER_ALLOCATION]
    assert not over.applies and over.bytes_saved is None and not over.missing
    assert "no bytes held beyond" in over.notes[0]


def test_of_every_api_at_once_only_the_pools_reservation_is_over_allocation():
    _, a = _options(trace("trace-pin-each-api.json"))
    assert a.program.options[0].bytes_saved == 301989888 - 268435579
    applies = [s.cost for s in a.sites if s.options[0].applies]
    assert len(a.sites) == 6 and [c.by_family for c in applies] == [{"pool_host": 301989888}]


def test_power_of_two_blocks_without_the_batch_bytes_are_missing_evidence_not_a_guess(tmp_path):
    t = variant(tmp_path, "trace-dataloader-w4.json", lambda d: d["notes"].pop("batch_bytes"))
    over = _options(t)[0][OVER_ALLOCATION]
    assert over.applies and not over.complete
    assert over.bytes_saved is None and over.vram_saved is None
    assert over.missing[0].run == NOTE_HOW
    assert "between 2.50 GiB and 5.00 GiB" in over.missing[0].why
    assert "PyTorch" in over.missing[0].why


def test_a_host_pools_reservation_beyond_its_allocations_is_over_allocation():
    o, _ = _options(trace("trace-apis-pool-touch1.json"))
    over = o[OVER_ALLOCATION]
    assert over.bytes_saved == 301989888 - 268435579, "the pool reserved 288 MiB for 256 MiB + 123 B"
    assert "cuMemPoolTrimTo" in over.notes[0]


def test_the_staging_ring_and_pageable_rest_on_their_benchmark_rows():
    o, _ = _options(trace("trace-dataloader-w4.json"))
    ring, page = o[STAGING_RING], o[PAGEABLE]
    assert ring.complete and ring.bytes_after == 64 * MIB and ring.bytes_saved == 5 * GIB - 64 * MIB
    assert 0.80 < ring.speed < 0.90 and ring.evidence[0].path == str(STAGING)
    assert page.complete and page.bytes_after == 0 and page.bytes_saved == 5 * GIB
    assert 0.10 < page.speed < 0.15 and page.evidence[0].path == str(TRANSFER)
    assert page.vram_saved == pytest.approx(_options(trace("trace-dataloader-w4.json"))[1].program.cost.predicted)


def _small(doc):
    """The DataLoader trace holding one 32 MiB block at its peak."""
    doc["pinned"]["at_peak"] = doc["pinned"]["at_peak"][:1]
    doc["pinned"]["at_peak"][0]["bytes"] = 32 * MIB
    doc["pinned"]["peak_bytes"] = 32 * MIB


def test_a_ring_no_smaller_than_what_is_held_does_not_apply(tmp_path):
    o, _ = _options(variant(tmp_path, "trace-dataloader-w4.json", _small))
    assert not o[STAGING_RING].applies and "no more than the ring (64.00 MiB)" in o[STAGING_RING].notes[0]
    assert not o[REGISTER_WINDOW].applies, "32 MiB held is less than one 300 MiB transfer"


def test_a_ring_larger_than_any_measured_is_costed_at_the_largest_measured():
    ring = _options(trace("trace-dataloader-w4.json"), ring_bytes=8 * GIB)[0][STAGING_RING]
    assert ring.bytes_after == 256 * MIB and "256.00 MiB" in ring.change


def test_without_benchmark_files_the_speeds_are_missing_with_what_to_run():
    o, _ = _options(trace("trace-dataloader-w4.json"), benches=load_benches([]))
    for name in (STAGING_RING, PAGEABLE):
        assert o[name].speed is None and not o[name].complete
        assert "--bench" in o[name].missing[0].run
    assert o[OVER_ALLOCATION].complete, "needs no benchmark: the copies stay pinned"


def test_the_register_window_rests_on_the_stored_run_and_is_missing_without_a_store():
    o, _ = _options(trace("trace-dataloader-w4.json"))
    w = o[REGISTER_WINDOW]
    assert w.complete and w.bytes_after == 300 * MIB
    assert w.speed == pytest.approx(1 / 3.929985446664852)
    assert w.evidence[0].item == "nightly-register-window/cudaHostRegister/1GiB/x1/g1"
    bare, _ = _options(trace("trace-dataloader-w4.json"), runs=[])
    assert bare[REGISTER_WINDOW].speed is None
    assert any(m.run.startswith(RUN_STORE) for m in bare[REGISTER_WINDOW].missing)


def test_without_a_store_vram_is_scaled_from_the_traces_own_cost_and_says_so():
    o, _ = _options(trace("trace-dataloader-w4.json"), runs=[])
    page = o[PAGEABLE]
    assert page.vram_saved == pytest.approx(10 * MIB), "all 5 GiB at the observed 10 MiB"
    assert page.vram_after_bound is None and "trace's own observed cost" in page.vram_basis


def test_without_a_store_and_without_a_device_figure_vram_is_missing(tmp_path):
    from advice_data import no_samples

    t = variant(tmp_path, "trace-dataloader-w4.json", no_samples)
    page = _options(t, runs=[])[0][PAGEABLE]
    assert page.vram_saved is None and page.missing[-1].what == "VRAM saved"
    assert "no store was given" in page.missing[-1].why


def test_the_needed_bytes_the_program_noted_count_for_the_program_and_its_one_site(tmp_path):
    def needed(doc):
        doc["notes"].pop("batch_bytes")
        doc["notes"]["needed_bytes"] = 3000 * MIB

    _, a = _options(variant(tmp_path, "trace-dataloader-w4.json", needed))
    for scope in (a.program, a.sites[0]):
        over = scope.options[0]
        assert over.complete and over.bytes_saved == 5 * GIB - 3000 * MIB, scope.cost.scope
        assert TORCH_SETTING in over.notes
