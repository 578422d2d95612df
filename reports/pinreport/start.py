"""The program's entry point (the `pinreport` command and `python -m pinreport`): the signal
handlers first (base/signals.py), then the rest of pinreport is imported and run. Importing
the analysis takes most of a second (numpy, scipy, jinja2); a Ctrl-C in that second ends the
program as one at any other moment does: one line, exit 128 + N, no traceback."""

from pinreport.base import signals

signals.install()


def main() -> int:
    from pinreport.cli import main as run

    return run()
