"""child.run_bounded: a child program's exit code, output and the start of its standard error,
and one line (ChildFailed) for a program that cannot start, writes too much or takes too long."""

import sys
import time

import pytest
from pinreport.base.child import STDERR_LIMIT, ChildFailed, run_bounded


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_the_exit_code_output_and_standard_error_of_a_program():
    done = run_bounded(
        _python(
            "import sys; d = sys.stdin.buffer.read(); sys.stdout.buffer.write(d[::-1]); "
            "sys.stderr.write('a note'); sys.exit(3)"
        ),
        b"abc",
        stdout_limit=3,  # exactly the limit is fine
        timeout_s=60,
    )
    assert (done.code, done.stdout, done.stderr) == (3, b"cba", "a note")


def test_more_output_than_the_limit_is_refused():
    with pytest.raises(ChildFailed, match=r"^wrote more than 100 bytes$"):
        run_bounded(_python("import sys; sys.stdout.write('x' * 10_000)"), b"", stdout_limit=100, timeout_s=60)


def test_a_program_that_does_not_finish_is_ended():
    started = time.monotonic()
    with pytest.raises(ChildFailed, match=r"^did not finish within 0.5 s$"):
        run_bounded(_python("import time; time.sleep(60)"), b"", stdout_limit=100, timeout_s=0.5)
    assert time.monotonic() - started < 30


def test_a_program_that_cannot_start_is_named():
    with pytest.raises(ChildFailed, match=r"^cannot run: "):
        run_bounded(["/nonexistent/pinbench-no-such-program"], b"", stdout_limit=100, timeout_s=60)


def test_a_program_that_never_reads_its_input_is_no_hang():
    done = run_bounded(_python("print('ok')"), b"x" * (8 << 20), stdout_limit=100, timeout_s=60)
    assert (done.code, done.stdout.strip()) == (0, b"ok")


def test_standard_error_is_kept_up_to_its_limit():
    done = run_bounded(
        _python(f"import sys; sys.stderr.write('e' * {STDERR_LIMIT * 3})"), b"", stdout_limit=100, timeout_s=60
    )
    assert done.code == 0
    assert done.stderr == "e" * STDERR_LIMIT
