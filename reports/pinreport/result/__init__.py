"""Reading one results file, and Google Benchmark JSON: the result stage."""
