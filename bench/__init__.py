"""Benchmarks (`make bench`): each `bench/bench_<area>.py` has a `main()` that prints Markdown."""
