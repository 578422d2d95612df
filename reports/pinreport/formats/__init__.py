"""The text outputs, one formatter per file: the terminal (console.py), Markdown for CI
summaries (markdown.py) and JUnit XML (junit.py). The HTML report is render/."""
