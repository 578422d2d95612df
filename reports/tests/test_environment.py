"""environment.py: the Environment value a results file's record is read into, once."""

from builders import results_doc, run_doc
from pinreport.readers.environment import Environment
from pinreport.readers.results import ResultsFile
from pinreport.readers.store_key import StoreKey


def test_the_record_read_once_into_typed_values():
    doc = results_doc([run_doc()], release="580.65.06", gpu="NVIDIA H200")
    current = ResultsFile("r.json", doc)
    env = current.environment
    assert env is current.environment  # read once
    assert env.key == StoreKey("linux", "linux", "nvidia-h200", "1gpu", "580.65.06")
    assert (env.release, env.driver_models, env.platform, env.replayed) == ("580.65.06", ("linux",), "linux", False)
    assert current.compared_fields["devices[0].name"] == "NVIDIA H200"


def test_a_missing_or_broken_record_is_unknown_not_an_error():
    for record in (None, {}, [], "x"):
        env = Environment.from_json(record)
        assert env.key == StoreKey(
            "unknown-platform", "unknown-driver-model", "unknown-gpu", "unknown-gpu-count", "unknown-release"
        )
        assert (env.release, env.driver_models, env.platform, env.replayed) == (None, (), None, False)


def test_a_replayed_record():
    doc = results_doc([run_doc()], replay_of="x.json")
    assert ResultsFile("r.json", doc).replayed and ResultsFile("r.json", doc).environment.replayed
