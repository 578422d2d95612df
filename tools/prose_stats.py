"""Prose figures of Markdown files: lines, words, sentences, mean words per sentence, sentences
over 40 words, the longest sentence, parentheses, code spans and the longest table cell.

Code blocks and tables are left out of the sentence count (table cells are counted apart).
Usage: python3 tools/prose_stats.py FILE.md...
"""

import re
import sys


def stats(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.count("\n")
    prose, cells, in_code = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.lstrip().startswith("|"):
            cells += [c.strip() for c in line.strip().strip("|").split("|")]
            continue
        prose.append(line)
    body = "\n".join(prose)
    body = re.sub(r"<!--.*?-->", " ", body, flags=re.S)
    code_spans = len(re.findall(r"`[^`]+`", body))
    words_text = re.sub(r"`[^`]+`", "CODE", body)
    words_text = re.sub(r"\]\([^)]*\)", "]", words_text)  # link targets
    # paragraphs: blank-line separated; headings and list items end a sentence
    chunks = re.split(r"\n\s*\n|\n(?=\s*[-*] |\s*\d+\. |#)", words_text)
    sentences = []
    for ch in chunks:
        ch = " ".join(ch.split())
        ch = re.sub(r"^#+\s*", "", ch)
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`*\[(])", ch):
            n = len(s.split())
            if n >= 3:
                sentences.append(n)
    words = sum(sentences)
    return dict(
        lines=lines,
        words=len(words_text.split()),
        sentences=len(sentences),
        mean=round(words / max(1, len(sentences)), 1),
        over40=sum(1 for n in sentences if n > 40),
        longest=max(sentences, default=0),
        parens=body.count("("),
        code_spans=code_spans,
        longest_cell=max((len(c) for c in cells), default=0),
    )


for p in sys.argv[1:]:
    print(p, stats(p))
