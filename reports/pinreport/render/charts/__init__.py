"""One chart family per module; each returns svg_charts.Chart values that the template draws."""
