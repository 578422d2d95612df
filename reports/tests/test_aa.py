"""pinreport aa: the A/A check of the verdict rules (false_alarms.py), on synthetic nights in memory.

The nights here are made by builders.py for the test; they are not measurements."""

from builders import MiB, document, results_doc, run_doc, write_json
from pinreport.analysis import false_alarms
from pinreport.analysis.compare import CompareOptions
from pinreport.cli import main
from pinreport.formats.console import format_aa
from pinreport.readers.results import ResultsFile

ALLOC = [100.0, 100.5, 101.0, 101.5, 102.0, 102.5, 103.0]  # a night of 7 repeats, median 101.5 ms


def _night(i: int, level: float, cost: int = 8 * MiB, granule: int = 128 * 1024) -> ResultsFile:
    run = run_doc(
        size=4 * 1024**3,
        costs={"cuda.free": [cost] * 7},
        timings={"alloc": [t + level for t in ALLOC]},
        granules={"cuda.free": granule},
    )
    return ResultsFile(f"night{i}.json", results_doc([run], started_at=f"2025-06-0{i + 1}T10:00:00Z"))


def test_three_quiet_nights_no_false_alarm_every_time_metric_judged_and_shifts_caught():
    # medians 101.5, 111.5, 106.5 ms: +10% between nights, under the 25% time floor
    nights = [_night(0, 0.0), _night(1, 10.0), _night(2, 5.0)]
    results = false_alarms.check(nights, CompareOptions())
    assert [r.false_alarms for r in results] == [[], [], []]
    assert [r.time_judged for r in results] == [1, 1, 1]
    assert [r.time_total for r in results] == [1, 1, 1]
    # night 0 against nights 1 and 2: spread 5 ms, a shift of 15 ms is 14% of 109 ms: under the floor
    assert results[0].time_injected == 1 and results[0].time_detected == 0 and results[0].time_under_floor == 1
    # the held costs (after_alloc and after_first_use on cuda.free) moved by one 128 KiB granule: caught
    assert [(r.bytes_injected, r.bytes_detected) for r in results] == [(2, 2)] * 3
    text = format_aa(results, CompareOptions())
    assert "Summary: nights with a false alarm 0/3 (0% per night); time metrics judged 3 of 3" in text


def test_shift_of_three_spreads_is_caught_when_over_the_time_floor():
    # nights at +0 and +60 ms (spread 60 ms, 46% of 131.5 ms), judged: a 180 ms shift (137%,
    # over the 100% floor) is caught
    nights = [_night(0, 0.0), _night(1, 60.0), _night(2, 30.0)]
    r = false_alarms.check(nights, CompareOptions())[2]
    assert r.false_alarms == []
    assert (r.time_injected, r.time_detected) == (1, 1)


def test_two_nights_judge_no_time_metric_and_say_so():
    results = false_alarms.check([_night(0, 0.0), _night(1, 1.0)], CompareOptions())
    assert [r.time_judged for r in results] == [0, 0]
    assert [dict(r.time_verdicts) for r in results] == [{"AMBIGUOUS": 1}, {"AMBIGUOUS": 1}]


def test_cli_exit_codes(tmp_path, capsys):
    paths = [
        str(write_json(tmp_path / f"n{i}.json", document(n)))
        for i, n in enumerate([_night(0, 0), _night(1, 5), _night(2, 2)])
    ]
    assert main(["aa", *paths]) == 0
    assert "false alarms: 0" in capsys.readouterr().out
    # a night whose cost moved by 4 granules is a false alarm of the A/A check: exit 1
    moved = _night(3, 0.0, cost=8 * MiB + 512 * 1024)
    paths.append(str(write_json(tmp_path / "n3.json", document(moved))))
    assert main(["aa", *paths]) == 1
    out = capsys.readouterr().out
    assert "cost.after_first_use.cuda.free REGRESSION" in out
    other = results_doc([run_doc()], release="999.1", started_at="2025-07-01T10:00:00Z")
    assert main(["aa", paths[0], str(write_json(tmp_path / "other.json", other))]) == 2
    assert "not the machine and release of" in capsys.readouterr().err
