"""`pinreport advise` (docs/advise.md): what a traced program's pinning costs now, the options
that would change it, each with the measured number it rests on, and a verdict in plain words.

  evidence.py  the measured numbers (benchmark rows, register-window runs, the pin budget), each
               with its source, or what is missing and the command that measures it
  cost.py      what a call site and the whole program cost now: bytes held, the store's fit
  options.py   the four options (over-allocation, a staging ring, pageable copies, a register
               window), each with bytes and VRAM saved and the copy speed kept
  verdict.py   the threshold and the ranking: VRAM saved per percent of copy speed lost
  build.py     the one pipeline: a trace and its evidence in, one Advice value out
  text.py, json_doc.py, page.py  the Advice as terminal text, as JSON, as the trace page's section
  command.py   the `advise` subcommand and the evidence options `trace` shares
"""
