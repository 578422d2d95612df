"""The readers: every input pinreport is given, read once into typed values at the border
(results files, traces, budget documents, Google Benchmark JSON, environment records)."""
