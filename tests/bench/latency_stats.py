"""The percentile the Python benchmarks report: the nearest-rank sample of a sorted list, in the
samples' own unit (tests/bench/offset_commits.py, concurrent_transactions.py,
fdatasync_latency.py)."""


def percentile(sorted_samples, q):
    """The sample at quantile q (0..1) of `sorted_samples`, a non-empty sorted list."""
    n = len(sorted_samples)
    return sorted_samples[min(n - 1, int(q * (n - 1) + 0.5))]
