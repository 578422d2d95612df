"""advice/text.py: the terminal text of an Advice: the cost line, each option's numbers and the
source it rests on, what is missing, and an untrusted call site escaped."""

from advice_data import STAGING, TRANSFER, h200_runs, trace, variant
from pinreport.advice.build import build_advice
from pinreport.advice.evidence import load_benches
from pinreport.advice.text import cost_line, format_advice

BENCHES = load_benches([str(TRANSFER), str(STAGING)])


def test_the_cost_line_holds_bytes_blocks_fit_and_observation():
    a = build_advice(trace("trace-dataloader-w4.json"), h200_runs(), BENCHES, store_given=True)
    line = cost_line(a.program, a.gpus)
    assert line.startswith("holds 5.00 GiB pinned at the peak; as 10 x 512.00 MiB; VRAM 9.97 MiB predicted")
    assert line.endswith("observed 10.00 MiB")


def test_every_option_is_printed_with_its_numbers_or_why_not():
    text = format_advice(build_advice(trace("trace-dataloader-w4.json"), [], load_benches([])))
    assert "staging_ring: copy through a staging ring of about 64.00 MiB" in text
    assert "staging-ring copy speed missing: no staging rows of this machine were given" in text
    assert "pageable copy speed missing" in text and "register-window copy speed missing" in text
    assert "one call site: libtorch_cuda.so+0xcc0bd3 (the program's figures)" in text


def test_an_untrusted_call_site_is_escaped(tmp_path):
    def hostile(doc):
        for h in doc["pinned"]["at_peak"][:5]:
            h["site"] = "evil\x1b[2Jsite"

    text = format_advice(build_advice(variant(tmp_path, "trace-dataloader-w4.json", hostile), h200_runs(), BENCHES))
    assert "\x1b" not in text and "call site evil" in text


def test_nothing_worth_changing_still_names_the_best_trade():
    text = format_advice(build_advice(trace("trace-dataloader-w4.json"), h200_runs(), BENCHES, store_given=True))
    assert "verdict: nothing worth changing" in text
    assert "best trade, if changed anyway: over_allocation: 4.17 MiB of VRAM for 0% of copy speed" in text
