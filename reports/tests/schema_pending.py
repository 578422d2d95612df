"""Regression examples whose bound the schema does not carry yet.

pinreport takes every bound from the schema files (base/schema.DocumentSchema); the bounds
themselves are written with the C++ side (issue 57, item 2). Where the schema still admits an
example, the test of that example is a strict xfail: it turns into a failure the day the schema
carries the bound, and then must pass as written."""

import pytest
from pinreport.base.schema import schema_of


def until_bounded(kind: str, doc) -> list:
    """The marks of a test whose example `doc` must be refused by the `kind` schema's bounds."""
    if not schema_of(kind).passes(doc):
        return []
    return [
        pytest.mark.xfail(strict=True, reason=f"the {kind} schema does not bound this example yet (issue 57, item 2)")
    ]
