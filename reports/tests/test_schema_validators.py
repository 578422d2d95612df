"""Every schema has two validators (pinreport.base.schema.DocumentSchema): jsonschema-rs decides, fast, and
jsonschema, the reference implementation, words the error. A document one accepts and the other
refuses would be read by one reader and not by the other; these tests hold them to the same
verdict on every small change of real documents: each value replaced by one of every JSON type,
each member removed, an unknown member added."""

import copy
import json

import jsonschema_rs
import pytest
from conftest import REPO_ROOT
from pinreport.base.errors import BadInputError
from pinreport.base.schema import json_path, results_json_schema_text, schema_of
from pinreport.readers import results as load

SOURCES = [
    # A complete ok run of every status the fixture set holds, and a real disturbed run (H200).
    "harness/tests/fixtures/results-validity/accept_base.json",
    "results/h200-driver-api/beside-neighbour/burst.json",
]
# Each document's changes are checked up to this many, spread evenly over it (about 5 ms each).
MAX_CHANGES = 1200
REPLACEMENTS = [None, True, 0, -1, 1.5, 2**64 - 1, "", "x", [], {}, [1], {"unknown": 1}]


def _trimmed(doc):
    """The document with every list cut to its first three items (the schema asks for three of
    some): the same kinds of value at every place, few enough that the reference validator
    checks each change in a few milliseconds."""
    if isinstance(doc, dict):
        return {k: _trimmed(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_trimmed(v) for v in doc[:3]]
    return doc


def _places(doc, at=(), seen=None):
    """Each place of the document once per shape: runs[0].repeats[1].index and runs[1].repeats[0].index
    meet the same part of the schema, and only the first is changed (also the first of each
    status, kind and probe: their dicts' keys are part of the shape)."""
    seen = set() if seen is None else seen
    shape = tuple("*" if isinstance(p, int) else p for p in at)
    if shape in seen:
        return
    seen.add(shape)
    yield at
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _places(v, (*at, k), seen)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _places(v, (*at, i), seen)


def _changed(doc, at, how):
    out = copy.deepcopy(doc)
    parent = out
    for part in at[:-1]:
        parent = parent[part]
    if how == "remove":
        del parent[at[-1]]
    elif how == "add":
        target = parent[at[-1]] if at else out
        target["pinbench_unknown_member"] = 1
    else:
        parent[at[-1]] = how[1]
    return out


def _changes(doc):
    for at in _places(doc):
        value = doc
        for part in at:
            value = value[part]
        if at:
            for r in REPLACEMENTS:
                yield at, ("replace", r)
            if isinstance(at[-1], str):
                yield at, "remove"
        if isinstance(value, dict):
            yield at, "add"


@pytest.mark.parametrize("source", SOURCES)
def test_the_fast_validator_agrees_with_the_reference(source):
    doc = _trimmed(json.loads((REPO_ROOT / source).read_text(encoding="utf-8")))
    schema = schema_of("results")
    fast, reference = schema.passes, schema.reference
    assert fast(doc) and reference.is_valid(doc), "the trimmed document must stay valid"
    changes = list(_changes(doc))
    checked = refused = 0
    disagreements = []
    for at, how in changes[:: -(-len(changes) // MAX_CHANGES)]:
        changed = _changed(doc, at, how)
        verdict = reference.is_valid(changed)
        checked += 1
        refused += not verdict
        if fast(changed) != verdict:
            disagreements.append(f"{json_path(at)} {how}: jsonschema says {verdict}")
    assert not disagreements, "\n".join(disagreements[:20])
    # The changes reach the schema's rules: many are refused, and many are not.
    assert checked > MAX_CHANGES // 2
    assert refused > 100
    assert checked - refused > 100


@pytest.mark.parametrize(
    ("value", "fast_raises"),
    [(-(2**70), False), (b"x", True)],  # an integer past 64 bits; bytes, which jsonschema-rs refuses to convert
)
def test_a_value_jsonschema_rs_refuses_or_cannot_convert_is_refused_with_the_reference_wording(value, fast_raises):
    """Releases of jsonschema-rs before 0.35 raised on integers past 2^63, and every release raises
    on a Python value that is not JSON: either way the document is refused, worded by jsonschema,
    never an exception out of pinreport."""
    doc = json.loads((REPO_ROOT / SOURCES[0]).read_text(encoding="utf-8"))
    doc["runs"][0]["repeats"][0]["index"] = value
    is_valid = jsonschema_rs.validator_for(json.loads(results_json_schema_text())).is_valid
    if fast_raises:
        with pytest.raises(ValueError):
            is_valid(doc)
    with pytest.raises(BadInputError) as e:
        load.parse_results(doc, "night.json")
    assert str(e.value).startswith("night.json: runs[0].repeats[0].index: ")
