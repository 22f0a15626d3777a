"""Tournaments: formats, the results store, workers, a Dask cluster, compare."""
