"""What every stage reads: errors and exit codes, units, the bounded reader and the atomic
writer, the output streams, versions, schema names, the metric catalog, probe keys, labels."""
