"""The benchmarks behind `arena bench`."""
