"""advice/page.py and templates/advice_section.html.j2: the trace page's advice section shows
what the Advice holds, escaped, labelled REPLAYED where the store was."""

from advice_data import STAGING, TRANSFER, h200_runs, trace, variant
from pinreport.advice.build import build_advice
from pinreport.advice.evidence import load_benches
from pinreport.advice.page import advice_context
from pinreport.pipeline.commands import trace_report
from pinreport.render.trace_page import write_trace_html

BENCHES = load_benches([str(TRANSFER), str(STAGING)])


def test_the_context_has_the_programs_scope_and_one_per_site_when_there_are_several():
    a = build_advice(trace("trace-pin-each-api.json"), h200_runs(), BENCHES, store_given=True)
    ctx = advice_context(a)
    assert [s["title"] for s in ctx["scopes"]][0] == "The program" and len(ctx["scopes"]) == 7
    assert ctx["scopes"][0]["options"][0][0].startswith("over_allocation: pin only the bytes the buffers need")


def test_the_section_is_on_the_page_escaped_and_labelled_when_replayed(tmp_path):
    def hostile(doc):
        for h in doc["pinned"]["at_peak"][:5]:
            h["site"] = "<script>x</script>"

    t = variant(tmp_path, "trace-dataloader-w4.json", hostile)
    a = build_advice(t, h200_runs(replayed=True), BENCHES, store_given=True, replayed=True)
    page = tmp_path / "t.html"
    write_trace_html(trace_report(t, [], a), str(page))
    html = page.read_text()
    assert "[REPLAYED] Advice: what to change" in html
    assert "<script>x" not in html and "&lt;script&gt;x" in html
    plain = tmp_path / "plain.html"
    write_trace_html(trace_report(t, []), str(plain))
    assert "Advice:" not in plain.read_text(), "no section without an advice"
