# Benchmarks: written by the benchmark issue.
